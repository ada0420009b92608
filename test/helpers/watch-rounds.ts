import { silentLogger } from '../../src/logger.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import type { WatchChat, WatchMessages } from '../../src/watches/watch-chat.js';
import type { WatchScheduleRule } from '../../src/watches/watch-schedule.js';
import {
  type WatchReports,
  type WatchRequest,
  type WatchResult,
  WatchService,
  type WatchTurn,
} from '../../src/watches/watch-service.js';
import { WatchStore } from '../../src/watches/watch-store.js';
import type { ManualClock } from './clocks.js';
import { sampleReport } from './sample-report.js';

/**
 * Watches going round the report limit's slots on a clock the test moves (no wall time): the
 * scheduler's turns driven one slot apart, a report endpoint that hands out `limit` reports a
 * window and records each, and the bound every watched event is checked within.
 */

export const WINDOW_MS = 60_000;
/** The spec's report limit: 3 a window. */
export const LIMIT = 3;
/** One report slot: windowMs / limit. */
export const SLOT_MS = WINDOW_MS / LIMIT;
export const T0 = Date.parse('2026-12-01T09:00:00Z');
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The rule with `WATCH_MIN_INTERVAL` = `minIntervalWindows` windows (the bench's 1 lets early checks happen). */
export const ruleWith = (minIntervalWindows: number): WatchScheduleRule => ({
  limit: LIMIT,
  windowMs: WINDOW_MS,
  minIntervalMs: minIntervalWindows * WINDOW_MS,
});

/** The promise, computed here and not by the code under test: max(ceil(W / limit) windows, the minimum interval). */
export const boundFor = (watched: number, rule: WatchScheduleRule): number =>
  Math.max(Math.ceil(Math.max(1, watched) / rule.limit) * rule.windowMs, rule.minIntervalMs);

/**
 * The report endpoint as watches see it: a report while fewer than `limit` were handed out in the
 * window before now (its limit, as a sliding window), none otherwise; each report handed out is
 * recorded with the clock's time.
 */
export class SlottedReports implements WatchReports {
  readonly served: { eventId: string; at: number }[] = [];
  /** Calls answered "no spare slot". */
  refusedCalls = 0;
  readonly #clock: { now(): number };
  readonly #rule: WatchScheduleRule;

  constructor(clock: { now(): number }, rule: WatchScheduleRule) {
    this.#clock = clock;
    this.#rule = rule;
  }

  async spare(eventId: string): Promise<EventReport | undefined> {
    const now = this.#clock.now();
    const inWindow = this.served.filter((call) => call.at > now - this.#rule.windowMs).length;
    if (inWindow >= this.#rule.limit) {
      this.refusedCalls += 1;
      return undefined;
    }
    this.served.push({ eventId, at: now });
    return sampleReport({ eventId });
  }
}

export const stringMessages: WatchMessages<string> = {
  card: ({ watch, state }) => `card ${watch.eventId} ${state}`,
  alert: ({ watch, condition }) => `alert ${watch.eventId} ${condition.key}`,
  summary: ({ watch }) => `summary ${watch.eventId}`,
  paused: (watch, reason) => `paused ${watch.eventId}: ${reason}`,
};

/** A Slack that takes every post at once. */
export function quietChat(): WatchChat<string> {
  let ts = 0;
  return {
    postCard: async () => `1764579600.${String(++ts).padStart(6, '0')}`,
    updateCard: async () => undefined,
    reply: async () => undefined,
    findCard: async () => undefined,
    findReply: async () => false,
    notify: async () => undefined,
    channelRefusal: () => undefined,
  };
}

/** One replica's watch service over `handle` (its own connection), on the test's clock and report endpoint. */
export function watchService(
  handle: StoreHandle,
  options: { clock: ManualClock; reports: WatchReports; rule: WatchScheduleRule },
): WatchService<string> {
  return new WatchService<string>({
    store: new WatchStore(handle.keyValue, silentLogger),
    claims: handle.claims,
    chat: quietChat(),
    messages: stringMessages,
    reports: options.reports,
    rule: options.rule,
    clock: options.clock,
    logger: silentLogger,
  });
}

/**
 * `count` upcoming events, `evt_01` first. `starts`: 'as-set' (each starts an hour after the one
 * before: events set later start later, so the early path keeps favouring the first ones) or
 * 'reversed' (events set later start sooner).
 */
export function eventsToWatch(count: number, starts: 'as-set' | 'reversed' = 'as-set'): WatchRequest['event'][] {
  return Array.from({ length: count }, (_, i) => {
    const startsAtMs = T0 + 7 * DAY + (starts === 'as-set' ? i : count - i) * HOUR;
    return {
      id: `evt_${String(i + 1).padStart(2, '0')}`,
      name: `Event ${i + 1}`,
      startsAtMs,
      endsAtMs: startsAtMs + 3 * HOUR,
    };
  });
}

/** A watch request for `event` in C0OPS by `userId`. */
export const watchOf = (event: WatchRequest['event'], userId: string): WatchRequest => ({
  channel: 'C0OPS',
  personal: false,
  event,
  userId,
  conditions: [{ kind: 'sold-out' }],
});

/** The replicas, the watches each sets and when, and how they take their turns. */
export interface RoundsPlan {
  clock: ManualClock;
  services: readonly WatchService<string>[];
  /** Watches set at the start of a step, before its turns, by step number; each set on the replica named. */
  additions: ReadonlyMap<number, { request: WatchRequest; replica: number }[]>;
  steps: number;
  /** 'one-by-one': step k's turn is replica k mod n's; 'together': every replica takes a turn at each step. */
  turns: 'one-by-one' | 'together';
}

export interface Rounds {
  /** When each watch that was set (not refused) was set, by event id. */
  setAt: Map<string, number>;
  results: WatchResult[];
  turns: WatchTurn['kind'][];
  /** The clock's time after the last step. */
  end: number;
}

/**
 * Drives the turns one slot apart: at each step the watches due to be set then are set, the turn
 * (or every replica's turn) runs, and the clock moves one slot.
 */
export async function runRounds(plan: RoundsPlan): Promise<Rounds> {
  const setAt = new Map<string, number>();
  const results: WatchResult[] = [];
  const turns: WatchTurn['kind'][] = [];
  const replica = (i: number) => plan.services[i % plan.services.length] as WatchService<string>;
  for (let step = 0; step < plan.steps; step += 1) {
    for (const { request, replica: i } of plan.additions.get(step) ?? []) {
      const result = await replica(i).watch(request);
      results.push(result);
      if (!result.refused) setAt.set(request.event.id, plan.clock.now());
    }
    const taken =
      plan.turns === 'together' ? await Promise.all(plan.services.map((s) => s.turn())) : [await replica(step).turn()];
    turns.push(...taken.map((t) => t.kind));
    await plan.clock.advance(SLOT_MS);
  }
  return { setAt, results, turns, end: plan.clock.now() };
}

export interface BoundReport {
  /** Each time an event waited past its bound plus one slot, in slots: empty when none did. */
  late: string[];
  /** Each time an event was checked sooner than the minimum interval after its last check. */
  tooSoon: string[];
  /** Checks made before the bound with the events then watched: the early path's, as there is no one asking. */
  early: number;
  /** Checks of events no watch was set for. */
  unwatched: string[];
  checksPerEvent: Map<string, number>;
}

/**
 * Holds each event's checks up to the bound: its first within the bound of its being set, each
 * next within the bound of the one before, and the end of the run within the bound of its last,
 * where W is the number of watches set by the later of the two times, and one slot of jitter.
 */
export function againstBound(
  served: readonly { eventId: string; at: number }[],
  rounds: Pick<Rounds, 'setAt' | 'end'>,
  rule: WatchScheduleRule,
): BoundReport {
  const watchedBy = (at: number) => [...rounds.setAt.values()].filter((set) => set <= at).length;
  const slots = (ms: number) => +(ms / SLOT_MS).toFixed(2);
  const report: BoundReport = { late: [], tooSoon: [], early: 0, unwatched: [], checksPerEvent: new Map() };
  for (const { eventId } of served) if (!rounds.setAt.has(eventId)) report.unwatched.push(eventId);
  for (const [eventId, set] of rounds.setAt) {
    const checks = served.filter((call) => call.eventId === eventId).map((call) => call.at);
    report.checksPerEvent.set(eventId, checks.length);
    let previous: { at: number; what: 'set' | 'check' } = { at: set, what: 'set' };
    const late = (at: number, what: string) => {
      const watched = watchedBy(at);
      const bound = boundFor(watched, rule);
      const waited = at - previous.at;
      if (waited > bound + SLOT_MS)
        report.late.push(
          `${eventId}: ${what} at slot ${slots(at - T0)}, ${slots(waited)} slots after its ${previous.what} ` +
            `(bound ${slots(bound)} slots with ${watched} watched, + 1)`,
        );
      return { waited, bound };
    };
    for (const at of checks) {
      const { waited, bound } = late(at, 'check');
      if (previous.what === 'check') {
        if (waited < rule.minIntervalMs) report.tooSoon.push(`${eventId}: ${slots(waited)} slots at ${slots(at - T0)}`);
        if (waited < bound) report.early += 1;
      }
      previous = { at, what: 'check' };
    }
    late(rounds.end, 'end of the run');
  }
  return report;
}
