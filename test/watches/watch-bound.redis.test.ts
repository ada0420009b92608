import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { WatchRequest } from '../../src/watches/watch-service.js';
import { ManualClock } from '../helpers/clocks.js';
import { useRedis } from '../helpers/redis-server.js';
import {
  againstBound,
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
 * Issue 38, across replicas: three watch services, each with its own connection to one real
 * redis-server (one store), share the report endpoint's limit; every watched event is checked
 * within max(ceil(W / limit) windows, WATCH_MIN_INTERVAL) of being set and of its last check, one
 * slot of jitter. The turns are driven one report slot apart on a clock the test moves.
 */

const redis = useRedis();

const REPLICAS = 3;
const PEOPLE = ['U0ANA', 'U0BEN', 'U0CAT'];
const RUN_ON_WINDOWS = 40;
const MIN_INTERVAL_WINDOWS = 1;

/**
 * Three replicas on a namespace of their own in the shared Redis; `events` set `perStep` at a time
 * every `everySlots` slots, in turn on each replica and by each person.
 */
async function replicas(options: {
  events: WatchRequest['event'][];
  everySlots: number;
  perStep: number;
  turns: 'one-by-one' | 'together';
}) {
  const rule = ruleWith(MIN_INTERVAL_WINDOWS);
  const clock = new ManualClock(T0);
  const reports = new SlottedReports(clock, rule);
  const namespace = `bound-${randomUUID()}`;
  const services = [];
  for (let i = 0; i < REPLICAS; i += 1) {
    const handle = await openStore(redis.url, { namespace });
    redis.closers.push(() => handle.close());
    services.push(watchService(handle, { clock, reports, rule }));
  }
  const additions = new Map<number, { request: WatchRequest; replica: number }[]>();
  options.events.forEach((event, i) => {
    const step = Math.floor(i / options.perStep) * options.everySlots;
    additions.set(step, [
      ...(additions.get(step) ?? []),
      { request: watchOf(event, PEOPLE[i % PEOPLE.length] as string), replica: i % REPLICAS },
    ]);
  });
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
});
