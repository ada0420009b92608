import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ReportSlots } from '../../src/reports/queue/report-slots.js';
import { openStore } from '../../src/store/open-store.js';
import type { WatchRequest } from '../../src/watches/watch-service.js';
import { ManualClock } from '../helpers/clocks.js';
import { useRedis } from '../helpers/redis-server.js';
import {
  againstBound,
  eventsToWatch,
  LIMIT,
  leftBoundFor,
  onTheClock,
  ruleWith,
  runRounds,
  SharedSlotReports,
  SlottedReports,
  shareBoundFor,
  T0,
  WINDOW_MS,
  watchOf,
  watchService,
} from '../helpers/watch-rounds.js';

/**
 * Issue 38, across replicas: three watch services, each with its own connection to one real
 * redis-server (one store), share the report endpoint's limit; every watched event is checked
 * within max(ceil(W / limit) windows, WATCH_MIN_INTERVAL) of being set and of its last check, one
 * slot of jitter. The turns are driven one report slot apart on a clock the test moves.
 *
 * With people asking, the replicas share the report limit as the shared queue does, through its
 * slot scripts (`ReportSlots`) in Redis. Those read Redis's own clock (`TIME`), and the queue's
 * BullMQ workers pause on real timers, so the whole `SharedReportQueue` cannot run on a moved
 * clock: the scripts run as they are with `TIME` swapped for the test's clock (`onTheClock`), a
 * person's job takes its slot as a worker does (`take`) and a watch check as `spare` does
 * (`takeSpare`, told whether people's jobs wait).
 */

const redis = useRedis();

const REPLICAS = 3;
const PEOPLE = ['U0ANA', 'U0BEN', 'U0CAT'];
const RUN_ON_WINDOWS = 40;

/** `events` set `perStep` at a time every `everySlots` slots, in turn on each replica and by each person. */
function additionsOf(events: WatchRequest['event'][], everySlots: number, perStep: number) {
  const additions = new Map<number, { request: WatchRequest; replica: number }[]>();
  events.forEach((event, i) => {
    const step = Math.floor(i / perStep) * everySlots;
    additions.set(step, [
      ...(additions.get(step) ?? []),
      { request: watchOf(event, PEOPLE[i % PEOPLE.length] as string), replica: i % REPLICAS },
    ]);
  });
  return additions;
}

/**
 * Three replicas on a namespace of their own in the shared Redis; `events` set `perStep` at a time
 * every `everySlots` slots, in turn on each replica and by each person.
 */
async function replicas(options: {
  events: WatchRequest['event'][];
  everySlots: number;
  perStep: number;
  turns: 'one-by-one' | 'together';
  minIntervalWindows?: number;
}) {
  const rule = ruleWith(options.minIntervalWindows ?? 1);
  const clock = new ManualClock(T0);
  const reports = new SlottedReports(clock, rule);
  const namespace = `bound-${randomUUID()}`;
  const services = [];
  for (let i = 0; i < REPLICAS; i += 1) {
    const handle = await openStore(redis.url, { namespace });
    redis.closers.push(() => handle.close());
    services.push(watchService(handle, { clock, reports, rule }));
  }
  const additions = additionsOf(options.events, options.everySlots, options.perStep);
  const rounds = await runRounds({
    clock,
    services,
    additions,
    steps: Math.max(...additions.keys()) + RUN_ON_WINDOWS * LIMIT,
    turns: options.turns,
  });
  return { rounds, reports, bound: againstBound(reports.served, rounds, rule) };
}

describe('watch checks within max(ceil(W / limit) windows, the minimum interval), three replicas on one Redis', () => {
  it.each(['one-by-one', 'together'] as const)(
    '30 watches set at once on the three replicas: none refused, each checked within 10 windows (turns %s)',
    async (turns) => {
      const { rounds, reports, bound } = await replicas({
        events: eventsToWatch(30),
        everySlots: 0,
        perStep: 30,
        turns,
      });
      expect(rounds.results.map((r) => r.refused)).toEqual(Array(30).fill(undefined));
      expect(rounds.setAt.size).toBe(30);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
      // One check per due time across the replicas: never more reports than the limit allows.
      expect(reports.served.length).toBeLessThanOrEqual(RUN_ON_WINDOWS * LIMIT);
      expect(Math.min(...bound.checksPerEvent.values())).toBeGreaterThanOrEqual(4);
    },
  );

  it.each(['one-by-one', 'together'] as const)(
    '30 watches added one by one every window on the three replicas: each within its bound, with W the watches set by then (turns %s)',
    async (turns) => {
      const { rounds, bound } = await replicas({ events: eventsToWatch(30), everySlots: LIMIT, perStep: 1, turns });
      expect(rounds.results.filter((r) => r.refused)).toEqual([]);
      expect(rounds.setAt.size).toBe(30);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
      expect(bound.early).toBeGreaterThan(0);
    },
  );

  it.each([1, 10])(
    'watches set two at a time every 2 windows on the three replicas do not push the checks already due past their bound (minimum %i windows)',
    async (minIntervalWindows) => {
      const { rounds, bound } = await replicas({
        events: eventsToWatch(30),
        everySlots: 2 * LIMIT,
        perStep: 2,
        turns: 'together',
        minIntervalWindows,
      });
      expect(rounds.results.filter((r) => r.refused)).toEqual([]);
      expect(rounds.setAt.size).toBe(30);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
    },
  );

  it('30 watches set at once with a 10-window minimum: each within 10 windows, never sooner than 10 after its last', async () => {
    const { rounds, bound } = await replicas({
      events: eventsToWatch(30),
      everySlots: 0,
      perStep: 30,
      turns: 'one-by-one',
      minIntervalWindows: 10,
    });
    expect(rounds.setAt.size).toBe(30);
    expect(bound.late).toEqual([]);
    expect(bound.tooSoon).toEqual([]);
    expect(Math.min(...bound.checksPerEvent.values())).toBeGreaterThanOrEqual(4);
  });
});

/**
 * Three replicas whose watches and people share the report limit through the shared queue's slot
 * scripts on the moved clock; `asks(step)`: people's jobs added at the start of each step, before
 * each replica's worker takes what slots it is given and the turns run.
 */
async function replicasWithPeople(options: {
  events: number;
  everyWindows: number;
  minIntervalWindows: number;
  windows: number;
  asks: (step: number) => number;
}) {
  const rule = ruleWith(options.minIntervalWindows);
  const clock = new ManualClock(T0);
  const shared = new SharedSlotReports(clock);
  const namespace = `bound-${randomUUID()}`;
  const services = [];
  const slots: ReportSlots[] = [];
  for (let i = 0; i < REPLICAS; i += 1) {
    const handle = await openStore(redis.url, { namespace });
    redis.closers.push(() => handle.close());
    if (!handle.shared) throw new Error('a redis:// store is shared');
    const replicaSlots = new ReportSlots({
      run: onTheClock(handle.shared.runScript, clock),
      key: `{${namespace}}:reports:rolling`,
      limit: rule.limit,
      windowMs: rule.windowMs,
      // The shared queue's: its job lock (30 s) and a window.
      leaseMs: 30_000 + rule.windowMs,
      watchShare: { everyWindows: options.everyWindows },
    });
    slots.push(replicaSlots);
    services.push(watchService(handle, { clock, reports: shared.for(replicaSlots), rule }));
  }
  const rounds = await runRounds({
    clock,
    services,
    additions: additionsOf(eventsToWatch(options.events), 0, options.events),
    steps: options.windows * LIMIT,
    turns: 'together',
    people: async (step) => {
      shared.waiting += options.asks(step);
      await shared.work(slots);
    },
  });
  return { rule, shared, rounds };
}

describe('watch checks within their bound while people’s reports take slots, three replicas on the shared queue’s slots', () => {
  it.each([
    { events: 30, everyWindows: 1, minIntervalWindows: 1 },
    { events: 6, everyWindows: 5, minIntervalWindows: 10 },
  ])(
    'people’s jobs waiting at every slot: $events events each within $events × ($everyWindows + 1) windows, or the $minIntervalWindows-window minimum + 1',
    async ({ events, everyWindows, minIntervalWindows }) => {
      const rule = ruleWith(minIntervalWindows);
      const boundOf = (watched: number) => shareBoundFor(watched, rule, everyWindows);
      const windows = Math.ceil((3 * boundOf(events)) / WINDOW_MS);
      const { shared, rounds } = await replicasWithPeople({
        events,
        everyWindows,
        minIntervalWindows,
        windows,
        // People never stop asking: jobs wait at every step.
        asks: (step) => (step === 0 ? 1_000_000 : 0),
      });
      expect(Math.min(...shared.waitingAtSpare)).toBeGreaterThan(0);
      const bound = againstBound(shared.served, rounds, rule, boundOf);
      expect(bound.late).toEqual([]);
      expect(bound.tooSoon).toEqual([]);
      expect(bound.unwatched).toEqual([]);
      expect(Math.min(...bound.checksPerEvent.values())).toBeGreaterThanOrEqual(2);
      // Every slot used, the watches' only as their share: never two of theirs in a row.
      expect(shared.served.length + shared.people.length).toBe(windows * LIMIT);
      const order = [
        ...shared.served.map((c) => ({ ...c, who: 'watch' })),
        ...shared.people.map((c) => ({ ...c, who: 'person' })),
      ];
      order.sort((a, b) => a.at - b.at);
      for (let i = 1; i < order.length; i += 1)
        expect(order[i - 1]?.who === 'watch' && order[i]?.who === 'watch').toBe(false);
    },
  );

  it('people taking 1 of the 3 slots a window: 30 events each within ceil(30 / 2) = 15 windows', async () => {
    const rule = ruleWith(1);
    const boundOf = (watched: number) => leftBoundFor(watched, rule, 1);
    const windows = 45;
    const { shared, rounds } = await replicasWithPeople({
      events: 30,
      everyWindows: 5,
      minIntervalWindows: 1,
      windows,
      asks: (step) => (step % LIMIT === 0 ? 1 : 0),
    });
    const bound = againstBound(shared.served, rounds, rule, boundOf);
    expect(bound.late).toEqual([]);
    expect(bound.tooSoon).toEqual([]);
    expect(bound.unwatched).toEqual([]);
    expect(shared.people.length).toBeGreaterThanOrEqual(windows - 1);
  });
});
