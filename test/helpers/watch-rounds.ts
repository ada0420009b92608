import { silentLogger } from '../../src/logger.js';
import { InProcessReportQueue, type ReportTicket } from '../../src/reports/queue/in-process-report-queue.js';
import type { ReportSlots } from '../../src/reports/queue/report-slots.js';
import type { WatchShareOptions } from '../../src/reports/queue/watch-share.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import type { ScriptRunner } from '../../src/ticketing/shared-budget.js';
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

/**
 * The bound while people's reports wait at every slot (the queue always busy): the watches have
 * only their share (`watch-share.ts`), owed once `everyWindows` windows passed since their last
 * slot and a person took one since. A slot freeing as they become owed goes to the people waiting
 * for it, and the watches claim the next to free: at most a window later, as every slot taken in
 * the window before frees within a window. So each share slot comes at most `everyWindows` + 1
 * windows after the last, and W events go round in W × (everyWindows + 1) windows. A check the
 * minimum interval holds back waits the same way, once due: up to a window more.
 */
export const shareBoundFor = (watched: number, rule: WatchScheduleRule, everyWindows: number): number =>
  Math.max(Math.max(1, watched) * (everyWindows + 1) * rule.windowMs, rule.minIntervalMs + rule.windowMs);

/** The bound while people take `taken` of the limit's slots each window: the rest go round the W events. */
export const leftBoundFor = (watched: number, rule: WatchScheduleRule, taken: number): number =>
  Math.max(Math.ceil(Math.max(1, watched) / (rule.limit - taken)) * rule.windowMs, rule.minIntervalMs);

/** One report call, with the clock's time. */
export interface Call {
  eventId: string;
  at: number;
}

/**
 * The real in-process report queue (`InProcessReportQueue`, the watches' share as configured) on
 * the test's clock, as the watches and people both use it: the watches through `spare`, people
 * through `ask`. Each call it makes is recorded, the watches' in `served` (as `SlottedReports`
 * records them) and people's in `people`.
 */
export class QueuedReports implements WatchReports {
  readonly served: Call[] = [];
  readonly people: Call[] = [];
  /** People's reports waiting at each of the watches' asks for a spare slot. */
  readonly waitingAtSpare: number[] = [];
  readonly queue: InProcessReportQueue;
  readonly #asks: { eventId: string; requester: string; ticket: ReportTicket }[] = [];
  #asked = 0;

  constructor(clock: ManualClock, rule: WatchScheduleRule, share: WatchShareOptions) {
    this.queue = new InProcessReportQueue({
      limit: rule.limit,
      windowMs: rule.windowMs,
      watchShare: share,
      clock,
      fetchReport: async (eventId, priority) => {
        (priority === 'background' ? this.served : this.people).push({ eventId, at: clock.now() });
        return sampleReport({ eventId });
      },
    });
  }

  async spare(eventId: string, options?: { readAfterMs?: number | undefined }): Promise<EventReport | undefined> {
    this.waitingAtSpare.push(this.queue.waiting);
    return this.queue.spare(eventId, options);
  }

  /** A new person asks for the report of an event nobody watches (so no limit of reports waiting is met). */
  ask(): void {
    this.#asked += 1;
    const eventId = `evt_p${this.#asked}`;
    const requester = `U0P${this.#asked}`;
    const ticket = this.queue.request(eventId, { requester });
    ticket.result.catch(() => undefined);
    this.#asks.push({ eventId, requester, ticket });
  }

  /**
   * The queue looks at its slots, as it does whenever one frees: its own timer is a real one, not
   * the clock's, and never fires on a moved clock, so the person who has waited longest asks
   * again for their report (a second ask shares its place: one call serves both), and the queue
   * looks then.
   */
  look(): void {
    while (this.#asks[0] && this.#asks[0].ticket.progress().state !== 'queued') this.#asks.shift();
    const first = this.#asks[0];
    if (first) this.queue.request(first.eventId, { requester: first.requester }).result.catch(() => undefined);
  }
}

/** People who keep `waiting` reports waiting at every step: the queue never idles. */
export const peopleSaturating =
  (reports: QueuedReports, waiting = LIMIT) =>
  async (): Promise<void> => {
    reports.look();
    while (reports.queue.waiting < waiting) reports.ask();
  };

/** People asking `perWindow` reports at the first step of each window. */
export const peopleAsking =
  (reports: QueuedReports, perWindow: number) =>
  async (step: number): Promise<void> => {
    reports.look();
    if (step % LIMIT === 0) for (let i = 0; i < perWindow; i += 1) reports.ask();
  };

/**
 * The replicas' shared report slots on the test's clock: the shared queue's own scripts
 * (`ReportSlots`, in a real redis-server) with Redis's `TIME` swapped for the clock's time, given
 * as two more arguments; nothing else in them changes.
 */
export function onTheClock(run: ScriptRunner, clock: { now(): number }): ScriptRunner {
  const TIME = "redis.call('TIME')";
  return (script, keys, args) => {
    const moved = script.replace(TIME, '{ARGV[#ARGV - 1], ARGV[#ARGV]}');
    if (moved === script || moved.includes(TIME)) throw new Error('the slot scripts no longer read TIME once each');
    const now = clock.now();
    return run(moved, keys, [...args, String(Math.floor(now / 1000)), String((now % 1000) * 1000)]);
  };
}

/**
 * People and watches of several replicas over their shared slots, as `SharedReportQueue` uses
 * them: a person's job takes a slot with `take` (a worker refused one tries again when its pause
 * ends: the next step here), a watch check with `takeSpare`, told whether people's jobs wait.
 * Every call answers at once and frees its slot a window later.
 */
export class SharedSlotReports {
  readonly served: Call[] = [];
  readonly people: Call[] = [];
  readonly waitingAtSpare: number[] = [];
  /** People's jobs waiting in the shared queue. */
  waiting = 0;
  readonly #clock: { now(): number };

  constructor(clock: { now(): number }) {
    this.#clock = clock;
  }

  /** The watches' report endpoint on the replica whose slots these are. */
  for(slots: ReportSlots): WatchReports {
    return {
      spare: async (eventId) => {
        this.waitingAtSpare.push(this.waiting);
        const slot = await slots.takeSpare(this.waiting > 0);
        if (slot === undefined) return undefined;
        this.served.push({ eventId, at: this.#clock.now() });
        await slots.finish(slot);
        return sampleReport({ eventId });
      },
    };
  }

  /** Each replica's worker takes slots for people's waiting jobs while it is given one. */
  async work(replicas: readonly ReportSlots[]): Promise<void> {
    for (const slots of replicas) {
      while (this.waiting > 0) {
        const grant = await slots.take();
        if (!('slot' in grant)) break;
        this.waiting -= 1;
        this.people.push({ eventId: `evt_p${this.people.length + 1}`, at: this.#clock.now() });
        await slots.finish(grant.slot);
      }
    }
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
  /**
   * What people do at the start of each step, after the watches are set and before the turns: a
   * slot freeing at a step goes to the people who wait for it before a watch looks (as the report
   * queue's own timer would hand it out the moment it frees), the order least kind to the watches.
   */
  people?: (step: number) => Promise<void>;
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
    await plan.people?.(step);
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
 * `boundOf` gives the bound for W (max(ceil(W / limit) windows, the minimum interval) unless told).
 */
export function againstBound(
  served: readonly { eventId: string; at: number }[],
  rounds: Pick<Rounds, 'setAt' | 'end'>,
  rule: WatchScheduleRule,
  boundOf: (watched: number) => number = (watched) => boundFor(watched, rule),
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
      const bound = boundOf(watched);
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
