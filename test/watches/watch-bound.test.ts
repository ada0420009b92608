import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { MAX_WATCHES_PER_PERSON } from '../../src/watches/watch-limits.js';
import type { WatchRequest } from '../../src/watches/watch-service.js';
import { ManualClock } from '../helpers/clocks.js';
import {
  againstBound,
  boundFor,
  eventsToWatch,
  LIMIT,
  ruleWith,
  runRounds,
  SlottedReports,
  T0,
  watchOf,
  watchService,
} from '../helpers/watch-rounds.js';

/**
 * Issue 38: with W watched events and no one asking, every event is checked within
 * max(ceil(W / limit) windows, WATCH_MIN_INTERVAL) of being set and of its last check (one slot
 * of jitter). One process on SQLite in memory; the turns are driven one report slot apart on a
 * clock the test moves. The replicas' case is watch-bound.redis.test.ts.
 */

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function sqlite(): Promise<StoreHandle> {
  const handle = await openStore('sqlite://:memory:');
  cleanup.push(() => handle.close());
  return handle;
}

const PEOPLE = ['U0ANA', 'U0BEN', 'U0CAT'];
const RUN_ON_WINDOWS = 40;

/** `events` set `perStep` at a time every `everySlots` slots from step 0, each by the next person in turn. */
function additionsOf(events: WatchRequest['event'][], everySlots: number, perStep = 1, people = PEOPLE) {
  const additions = new Map<number, { request: WatchRequest; replica: number }[]>();
  events.forEach((event, i) => {
    const step = Math.floor(i / perStep) * everySlots;
    const at = additions.get(step) ?? [];
    at.push({ request: watchOf(event, people[i % people.length] as string), replica: 0 });
    additions.set(step, at);
  });
  return additions;
}

/** One process: watches set as `additions` says, then the turns for `RUN_ON_WINDOWS` windows after the last. */
async function oneProcess(options: {
  minIntervalWindows: number;
  additions: Map<number, { request: WatchRequest; replica: number }[]>;
}) {
  const rule = ruleWith(options.minIntervalWindows);
  const clock = new ManualClock(T0);
  const reports = new SlottedReports(clock, rule);
  const service = watchService(await sqlite(), { clock, reports, rule });
  const lastAddition = Math.max(...options.additions.keys());
  const rounds = await runRounds({
    clock,
    services: [service],
    additions: options.additions,
    steps: lastAddition + RUN_ON_WINDOWS * LIMIT,
    turns: 'one-by-one',
  });
  return { rule, reports, rounds, service, bound: againstBound(reports.served, rounds, rule) };
}

describe('watch checks within max(ceil(W / limit) windows, the minimum interval), one process', () => {
  it.each([1, 10])(
    '30 watches set at once by three people: none refused, each checked within 10 windows of being set and of its last check (minimum interval %i windows)',
    async (minIntervalWindows) => {
      const { rounds, reports, bound } = await oneProcess({
        minIntervalWindows,
        additions: additionsOf(eventsToWatch(30), 0, 30),
      });
      expect(rounds.results.map((r) => r.refused)).toEqual(Array(30).fill(undefined));
      expect(rounds.setAt.size).toBe(30);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
      // 40 windows of 3 slots, every slot used: each event 4 times at least.
      expect(Math.min(...bound.checksPerEvent.values())).toBeGreaterThanOrEqual(4);
      expect(reports.served).toHaveLength(RUN_ON_WINDOWS * LIMIT);
    },
  );

  it('28 watches set at once with a one-window minimum: the spare slots check the soonest-starting event early, and every event keeps its bound', async () => {
    const { bound } = await oneProcess({ minIntervalWindows: 1, additions: additionsOf(eventsToWatch(28), 0, 28) });
    expect(bound.early).toBeGreaterThan(0);
    expect(bound.late).toEqual([]);
    expect(bound.tooSoon).toEqual([]);
  });

  it.each([
    { everySlots: 1, minIntervalWindows: 1, starts: 'as-set' },
    { everySlots: 3, minIntervalWindows: 1, starts: 'as-set' },
    { everySlots: 12, minIntervalWindows: 1, starts: 'as-set' },
    { everySlots: 12, minIntervalWindows: 1, starts: 'reversed' },
    { everySlots: 3, minIntervalWindows: 10, starts: 'as-set' },
  ] as const)(
    '30 watches added one by one every $everySlots slots (minimum $minIntervalWindows windows, starts $starts): each within its bound, with W the watches set by then',
    async ({ everySlots, minIntervalWindows, starts }) => {
      const { rounds, bound } = await oneProcess({
        minIntervalWindows,
        additions: additionsOf(eventsToWatch(30, starts), everySlots),
      });
      expect(rounds.results.filter((r) => r.refused)).toEqual([]);
      expect(rounds.setAt.size).toBe(30);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      // The early path was in play where the slots left room (a one-window minimum).
      if (minIntervalWindows === 1 && everySlots > 1) expect(bound.early).toBeGreaterThan(0);
    },
  );

  it.each([1, 10])(
    'watches set two at a time every 2 windows do not push the checks already due past their bound (minimum %i windows)',
    async (minIntervalWindows) => {
      const { rounds, bound } = await oneProcess({
        minIntervalWindows,
        additions: additionsOf(eventsToWatch(30), 6, 2),
      });
      expect(rounds.setAt.size).toBe(30);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
    },
  );
});

describe('a watch one person sets beyond the per-person limit', () => {
  it('is refused in the result, never stored and never checked, while the person’s others keep their bound', async () => {
    const events = eventsToWatch(MAX_WATCHES_PER_PERSON + 1);
    const { rounds, reports, bound, service, rule } = await oneProcess({
      minIntervalWindows: 1,
      additions: additionsOf(events, 0, events.length, ['U0ANA']),
    });
    const beyond = events.at(-1) as WatchRequest['event'];
    const refused = rounds.results.filter((r) => r.refused);
    expect(refused).toHaveLength(1);
    // What a caller gets back says so: refused, with the limit, nothing added and no card.
    expect(refused[0]).toMatchObject({
      refused: { kind: 'too-many-for-person', max: MAX_WATCHES_PER_PERSON, paused: 0 },
      added: [],
      watch: { eventId: beyond.id },
    });
    expect(refused[0]?.watch.cardTs).toBeUndefined();
    expect(rounds.setAt.has(beyond.id)).toBe(false);
    expect(await service.find({ setBy: 'U0ANA' })).toHaveLength(MAX_WATCHES_PER_PERSON);
    // Asked before spending a report on the conditions, the service says so too.
    expect(await service.wouldRefuse({ channel: 'C0OPS', userId: 'U0ANA', eventId: beyond.id })).toEqual({
      kind: 'too-many-for-person',
      max: MAX_WATCHES_PER_PERSON,
      paused: 0,
    });
    expect(reports.served.some((call) => call.eventId === beyond.id)).toBe(false);
    expect(bound.late).toEqual([]);
    expect(rounds.setAt.size).toBe(MAX_WATCHES_PER_PERSON);
    expect(boundFor(rounds.setAt.size, rule)).toBe(7 * rule.windowMs);
    // Another person may set it: the limit is the person's, not the conversation's.
    expect((await service.watch(watchOf(beyond, 'U0BEN'))).refused).toBeUndefined();
  });
});
