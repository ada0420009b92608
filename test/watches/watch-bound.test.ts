import { afterEach, describe, expect, it } from 'vitest';
import { watchRefusedMessage } from '../../src/render/watch-outcome-blocks.js';
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
  leftBoundFor,
  peopleAsking,
  peopleSaturating,
  QueuedReports,
  ruleWith,
  runRounds,
  SLOT_MS,
  SlottedReports,
  shareBoundFor,
  T0,
  WINDOW_MS,
  watchOf,
  watchService,
} from '../helpers/watch-rounds.js';

/**
 * Issue 38: with W watched events and no one asking, every event is checked within
 * max(ceil(W / limit) windows, WATCH_MIN_INTERVAL) of being set and of its last check (one slot
 * of jitter). One process on SQLite in memory; the turns are driven one report slot apart on a
 * clock the test moves. The replicas' case is watch-bound.redis.test.ts. While people's reports
 * take slots, the watches' reports come through the real in-process report queue and its share.
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
  it('30 set at once by one person (the bench’s first symptom): the 10 over the limit come back refused in the limit’s words, never checked, and the 20 set keep their bound', async () => {
    const events = eventsToWatch(30);
    const { rounds, reports, bound, rule } = await oneProcess({
      minIntervalWindows: 1,
      additions: additionsOf(events, 0, events.length, ['U0ANA']),
    });
    const refused = rounds.results.filter((r) => r.refused);
    // Refused by the service itself, not dropped: each result names the limit, nothing was added.
    expect(refused.map((r) => r.watch.eventId)).toEqual(events.slice(MAX_WATCHES_PER_PERSON).map((e) => e.id));
    for (const result of refused) {
      expect(result).toMatchObject({
        refused: { kind: 'too-many-for-person', max: MAX_WATCHES_PER_PERSON, paused: 0 },
        added: [],
      });
      // What the person is told, from that answer (as `watchOutcomeMessage` passes it on).
      if (!result.refused) throw new Error('filtered on refused');
      const { text } = watchRefusedMessage({ ...result.refused, eventName: result.watch.eventId });
      expect(text).toContain(`You have set up ${MAX_WATCHES_PER_PERSON} watches, as many as one person may`);
    }
    expect(rounds.setAt.size).toBe(MAX_WATCHES_PER_PERSON);
    expect([...rounds.setAt.keys()]).toEqual(events.slice(0, MAX_WATCHES_PER_PERSON).map((e) => e.id));
    // The 20 against their own bound, ceil(20 / 3) = 7 windows: each first checked, and again, within it.
    expect(boundFor(rounds.setAt.size, rule)).toBe(7 * rule.windowMs);
    expect(bound.late).toEqual([]);
    expect(bound.tooSoon).toEqual([]);
    expect(bound.unwatched).toEqual([]);
    // 40 windows at one check per 7 windows at most apart: 5 checks each at least.
    expect(Math.min(...bound.checksPerEvent.values())).toBeGreaterThanOrEqual(5);
    expect(reports.served.every((call) => rounds.setAt.has(call.eventId))).toBe(true);
  });

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

/**
 * One process with people asking: the watches' reports come from the real in-process queue, whose
 * people `people` keeps asking; watches set as `additions` says, then `windows` windows.
 */
async function withPeople(options: {
  minIntervalWindows: number;
  everyWindows: number;
  events: number;
  windows: number;
  people: (reports: QueuedReports) => (step: number) => Promise<void>;
}) {
  const rule = ruleWith(options.minIntervalWindows);
  const clock = new ManualClock(T0);
  const reports = new QueuedReports(clock, rule, { everyWindows: options.everyWindows });
  const service = watchService(await sqlite(), { clock, reports, rule });
  const rounds = await runRounds({
    clock,
    services: [service],
    additions: additionsOf(eventsToWatch(options.events), 0, options.events),
    steps: options.windows * LIMIT,
    turns: 'one-by-one',
    people: options.people(reports),
  });
  return { rule, reports, rounds };
}

describe('watch checks within their bound while people’s reports take slots (the real in-process queue), one process', () => {
  it.each([
    { events: 30, everyWindows: 5, minIntervalWindows: 10 },
    { events: 30, everyWindows: 1, minIntervalWindows: 1 },
    { events: 6, everyWindows: 2, minIntervalWindows: 1 },
    // Three events round the share in 3 × (1 + 1) = 6 windows: the 10-window minimum binds (+ 1, a slot to free).
    { events: 3, everyWindows: 1, minIntervalWindows: 10 },
  ])(
    'people waiting at every slot: $events events each within $events × ($everyWindows + 1) windows, or the $minIntervalWindows-window minimum + 1',
    async ({ events, everyWindows, minIntervalWindows }) => {
      const rule = ruleWith(minIntervalWindows);
      const boundOf = (watched: number) => shareBoundFor(watched, rule, everyWindows);
      const windows = Math.ceil((3 * boundOf(events)) / WINDOW_MS);
      const { reports, rounds } = await withPeople({
        minIntervalWindows,
        everyWindows,
        events,
        windows,
        people: (queue) => peopleSaturating(queue),
      });
      // The queue was busy at every one of the watches' asks: they had their share and no more.
      expect(reports.waitingAtSpare.length).toBeGreaterThan(0);
      expect(Math.min(...reports.waitingAtSpare)).toBeGreaterThan(0);
      const bound = againstBound(reports.served, rounds, rule, boundOf);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
      expect(Math.min(...bound.checksPerEvent.values())).toBeGreaterThanOrEqual(2);
      // People had every other slot: every slot was used, and never two watch calls in a row.
      expect(reports.served.length + reports.people.length).toBe(windows * LIMIT);
      const calls = [...reports.served.map((c) => ({ ...c, watch: true })), ...reports.people];
      calls.sort((a, b) => a.at - b.at);
      for (let i = 1; i < calls.length; i += 1)
        expect('watch' in (calls[i - 1] as object) && 'watch' in (calls[i] as object)).toBe(false);
      // The bound is the share's, no looser: one rotation takes nearly all of it.
      const longest = Math.max(...gapsOf(reports.served));
      expect(longest).toBeGreaterThan(boundOf(events) - 2 * SLOT_MS);
    },
  );

  it.each([
    { taken: 1, events: 30, minIntervalWindows: 1 },
    { taken: 2, events: 30, minIntervalWindows: 1 },
    { taken: 1, events: 30, minIntervalWindows: 10 },
    // ceil(12 / 2) = 6 windows: the 10-window minimum binds.
    { taken: 1, events: 12, minIntervalWindows: 10 },
  ])(
    'people taking $taken of the $events events’ 3 slots a window: each within ceil(W / (3 − $taken)) windows, or the $minIntervalWindows-window minimum',
    async ({ taken, events, minIntervalWindows }) => {
      const rule = ruleWith(minIntervalWindows);
      const boundOf = (watched: number) => leftBoundFor(watched, rule, taken);
      const windows = Math.ceil((3 * boundOf(events)) / WINDOW_MS);
      const { reports, rounds } = await withPeople({
        minIntervalWindows,
        everyWindows: 5,
        events,
        windows,
        people: (queue) => peopleAsking(queue, taken),
      });
      const bound = againstBound(reports.served, rounds, rule, boundOf);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
      // Every person asking was served, all but the last window's within it.
      expect(reports.people.length).toBeGreaterThanOrEqual((windows - 1) * taken);
    },
  );
});

/** The gaps between two checks of one event, for every event. */
function gapsOf(served: readonly { eventId: string; at: number }[]): number[] {
  const last = new Map<string, number>();
  const gaps: number[] = [];
  for (const { eventId, at } of served) {
    const before = last.get(eventId);
    if (before !== undefined) gaps.push(at - before);
    last.set(eventId, at);
  }
  return gaps;
}
