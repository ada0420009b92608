import type { LRUCache } from 'lru-cache';
import type { Priority } from '../../ticketing/budget.js';
import { CancelledError, cancellationError, isTicketingError, RateLimitedError } from '../../ticketing/errors.js';
import { assertRateLimit } from '../../ticketing/rate-limit.js';
import type { RateLimitObservation } from '../../ticketing/rate-limit-headers.js';
import type { EventReport } from '../../ticketing/schemas.js';
import type { Clock } from '../../time/clock.js';
import { systemClock } from '../../time/clock.js';
import { ttlCache } from '../../ttl-cache.js';
import type { CachedReport, CacheReadOptions, ReportProgress } from './report-queue.js';
import { ReportWaiting, type RequesterKind, type WaitingLimits } from './report-waiting.js';
import { WatchShare, type WatchShareOptions } from './watch-share.js';

export interface ReportTicket {
  readonly eventId: string;
  readonly result: Promise<EventReport>;
  progress(): ReportProgress;
  /** Stops waiting; the call itself is dropped from the queue once nobody waits for it. */
  cancel(): void;
}

export interface ReportRequestOptions {
  signal?: AbortSignal | undefined;
  priority?: Priority;
  /**
   * Who asks (a Slack user id): people take turns, so one person's ten requests do not put a
   * second person's one behind all ten. Requests without one are in arrival order.
   */
  requester?: string | undefined;
  /**
   * Whose limit of reports waiting the request counts against: its person's (`person`, the
   * default) or the one every workflow step shares (`step`). A request over it is refused with
   * `TooManyReportsWaitingError`, before any call.
   */
  requesterKind?: RequesterKind | undefined;
  /** How the event is named where it is asked (listed when a later request is refused). */
  label?: string | undefined;
  /** Ask the service even when a report of the event is cached (one that did not answer the question). */
  fresh?: boolean | undefined;
  /** Called whenever the queue moves. */
  onProgress?: (progress: ReportProgress) => void;
}

export type FetchReport = (eventId: string, priority: Priority, signal: AbortSignal) => Promise<EventReport>;

export interface ReportQueueOptions {
  /** Report calls admitted per window (the spec's 3). */
  limit: number;
  /** The window in ms (the spec's minute). */
  windowMs: number;
  /** How long a finished report is served from memory; 0 keeps none. @default 60000 */
  cacheTtlMs?: number;
  /** Reports waiting per requester. @default 5 a person, 10 for every workflow step together */
  waiting?: WaitingLimits;
  /** The watches' share of slots while people's reports wait. @default one slot in every 5 windows */
  watchShare?: WatchShareOptions;
  fetchReport: FetchReport;
  clock?: Clock;
}

interface Waiter {
  resolve: (report: EventReport) => void;
  reject: (error: unknown) => void;
  priority: Priority;
  onProgress: ((progress: ReportProgress) => void) | undefined;
}

interface Entry {
  eventId: string;
  /** Its turn: people's requests are admitted round by round, in arrival order within a round. */
  round: number;
  seq: number;
  state: 'queued' | 'fetching';
  waiters: Set<Waiter>;
  controller: AbortController;
}

/** One admitted call. Until it finishes, the server may see it at any moment, so it counts as "now". */
interface Slot {
  at: number;
  /** When it was admitted (`at` moves to its finish). */
  admittedAt: number;
  finished: boolean;
}

/**
 * Admits `GET /v1/events/{id}/report` calls person by person (round robin, first come first
 * served within a round), at most `limit` in any
 * sliding window (stricter than the server's fixed window, so never a 429 at a window edge), and
 * waits longer when the report's own headers say another key has used the allowance. Concurrent
 * requests for one event share one call; a finished report is cached for a short while.
 */
export class InProcessReportQueue {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #fetchReport: FetchReport;
  readonly #clock: Clock;
  readonly #queue: Entry[] = [];
  readonly #entries = new Map<string, Entry>();
  /** None when the TTL is 0: "no cache", where lru-cache would read 0 as "forever". */
  readonly #cache: LRUCache<string, CachedReport> | undefined;
  readonly #waiting: ReportWaiting;
  readonly #share: WatchShare;
  /** The latest `limit` admitted calls, oldest first. */
  readonly #admissions: Slot[] = [];
  #blockedUntil = 0;
  /** The round of the latest admitted request, and each person's latest round. */
  #round = 0;
  readonly #lastRound = new Map<string, number>();
  #seq = 0;
  #server: { remaining: number; resetAt: number; observedAt: number } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ReportQueueOptions) {
    assertRateLimit(options);
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#fetchReport = options.fetchReport;
    this.#clock = options.clock ?? systemClock;
    const cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.#cache = cacheTtlMs > 0 ? ttlCache({ max: 500, ttlMs: cacheTtlMs, clock: this.#clock }) : undefined;
    this.#waiting = new ReportWaiting(options.waiting);
    this.#share = new WatchShare(options.watchShare ?? {}, this.#windowMs);
  }

  /** Throws `TooManyReportsWaitingError` (no call made) when its requester has their limit waiting. */
  request(eventId: string, options: ReportRequestOptions = {}): ReportTicket {
    return this.#request(eventId, options, false);
  }

  #request(eventId: string, options: ReportRequestOptions, ahead: boolean): ReportTicket {
    const cached = options.fresh ? undefined : this.#cache?.get(eventId)?.report;
    if (cached) {
      const done: ReportProgress = { state: 'done', position: 0, estimatedWaitMs: 0 };
      return { eventId, result: Promise.resolve(cached), progress: () => done, cancel: () => {} };
    }
    const { requester } = options;
    const release = requester
      ? this.#waiting.admit(requester, options.requesterKind, { eventId, label: options.label })
      : undefined;
    // A person's next request takes the round after their last; someone new joins the current one.
    // A watch's share (`ahead`) goes before every round.
    const last = requester ? (this.#lastRound.get(requester) ?? 0) : 0;
    const round = ahead ? 0 : Math.max(this.#round, last + 1);
    let entry = this.#entries.get(eventId);
    if (!entry) {
      entry = {
        eventId,
        round,
        seq: this.#seq++,
        state: 'queued',
        waiters: new Set(),
        controller: new AbortController(),
      };
      this.#entries.set(eventId, entry);
      this.#enqueue(entry);
      if (requester) this.#rememberRound(requester, round);
    } else if (entry.state === 'queued' && round < entry.round) {
      // Someone whose turn comes sooner asks for it too: it moves up to their turn.
      this.#queue.splice(this.#queue.indexOf(entry), 1);
      entry.round = round;
      this.#enqueue(entry);
    }
    const current = entry;
    let waiter: Waiter | undefined;
    let finished = false;
    const result = new Promise<EventReport>((resolve, reject) => {
      waiter = {
        resolve,
        reject,
        priority: options.priority ?? 'interactive',
        onProgress: options.onProgress,
      };
      current.waiters.add(waiter);
    });
    // Its requester's report waits until it arrives (or fails, or they stop waiting).
    void result.then(
      () => {
        finished = true;
        release?.();
      },
      () => {
        finished = true;
        release?.();
      },
    );
    const cancel = (reason: unknown = new CancelledError('The report request was cancelled')) => {
      if (!waiter || !current.waiters.delete(waiter)) return;
      waiter.reject(reason);
      if (current.waiters.size === 0 && current.state === 'queued') {
        this.#queue.splice(this.#queue.indexOf(current), 1);
        this.#entries.delete(eventId);
        this.#notify();
      }
    };
    if (options.signal) {
      const signal = options.signal;
      if (signal.aborted) cancel(cancellationError(signal));
      else signal.addEventListener('abort', () => cancel(cancellationError(signal)), { once: true });
    }
    this.#pump();
    return {
      eventId,
      result,
      progress: () =>
        finished ? { state: 'done', position: 0, estimatedWaitMs: 0 } : this.#progressOf(current, this.#clock.now()),
      cancel: () => cancel(),
    };
  }

  /** A report fetched lately, still fresh in the cache, at no cost; else undefined. */
  cached(eventId: string, options: CacheReadOptions = {}): CachedReport | undefined {
    const cached = this.#cache?.get(eventId);
    if (!cached || (options.readAfterMs !== undefined && cached.readAt <= options.readAfterMs)) return undefined;
    return cached;
  }

  /**
   * A report for background work (a watch) only from a slot nobody waits for: fetched now when no
   * request waits and a slot is free (or served from the cache), else undefined. While people's
   * reports wait, the watches' share (one slot in every `watchShare.everyWindows` windows) is
   * taken here too.
   */
  spare(eventId: string, options: CacheReadOptions = {}): Promise<EventReport> | undefined {
    const cached = this.cached(eventId, options);
    if (cached) return Promise.resolve(cached.report);
    // A person's request for it, waiting or being fetched, serves both when it lands.
    if (this.#entries.has(eventId)) return undefined;
    const now = this.#clock.now();
    const peopleWait = this.#queue.length > 0;
    if (peopleWait && !this.#share.owed(now)) return undefined;
    const [slot] = this.#slots(1, now);
    if (slot === undefined || slot > now) {
      // Owed a slot while people wait: the next one to free is kept for the watches a while.
      if (peopleWait) this.#share.claim(now, slot ?? now);
      return undefined;
    }
    this.#share.took(now);
    return this.#request(eventId, { priority: 'background', fresh: true }, true).result;
  }

  /** In turn order: by round, then arrival. */
  #enqueue(entry: Entry): void {
    const at = this.#queue.findIndex(
      (other) => other.round > entry.round || (other.round === entry.round && other.seq > entry.seq),
    );
    if (at === -1) this.#queue.push(entry);
    else this.#queue.splice(at, 0, entry);
  }

  #rememberRound(requester: string, round: number): void {
    this.#lastRound.set(requester, round);
    // A round at or before the current one no longer holds anyone back.
    if (this.#lastRound.size > 1_000) {
      for (const [who, last] of this.#lastRound) if (last <= this.#round) this.#lastRound.delete(who);
    }
  }

  /** Feeds the report endpoint's own `X-RateLimit-*` headers (spec 8 rule 3). */
  observe(observation: RateLimitObservation): void {
    if (this.#server && observation.observedAt < this.#server.observedAt) return;
    this.#server = {
      remaining: observation.remaining,
      resetAt: observation.resetAt,
      observedAt: observation.observedAt,
    };
  }

  /** Reports waiting for admission (not counting those being fetched). */
  get waiting(): number {
    return this.#queue.length;
  }

  /** The admission times of the next `count` queued entries, by the limits known now. */
  #slots(count: number, now: number): number[] {
    // A call's slot frees a window after it finished (not after it was admitted): the request may
    // have waited for the organization's budget, and only its answer proves the server saw it.
    const admissions = this.#admissions.map((slot) => (slot.finished ? slot.at : now));
    const slots: number[] = [];
    let serverLeft = Number.POSITIVE_INFINITY;
    if (this.#server && now < this.#server.resetAt) {
      const since = this.#server.observedAt;
      // The server's count already holds every call answered by then, the one whose answer
      // brought these headers included: only calls admitted since, or still unanswered, are not in it.
      serverLeft =
        this.#server.remaining - this.#admissions.filter((slot) => slot.admittedAt > since || !slot.finished).length;
    }
    for (let i = 0; i < count; i += 1) {
      let at = Math.max(now, this.#blockedUntil);
      const oldest = admissions.length >= this.#limit ? admissions[admissions.length - this.#limit] : undefined;
      if (oldest !== undefined) at = Math.max(at, oldest + this.#windowMs);
      if (this.#server && at < this.#server.resetAt && serverLeft <= 0) at = this.#server.resetAt;
      if (this.#server && at < this.#server.resetAt) serverLeft -= 1;
      admissions.push(at);
      slots.push(at);
    }
    return slots;
  }

  #progressOf(entry: Entry, now: number): ReportProgress {
    if (entry.state === 'fetching') return { state: 'fetching', position: 0, estimatedWaitMs: 0 };
    const index = this.#queue.indexOf(entry);
    const slot = this.#slots(index + 1, now)[index] ?? now;
    return { state: 'queued', position: index + 1, estimatedWaitMs: Math.max(0, slot - now) };
  }

  #notify(): void {
    const now = this.#clock.now();
    for (const entry of [...this.#entries.values()]) {
      const progress = this.#progressOf(entry, now);
      for (const waiter of entry.waiters) waiter.onProgress?.(progress);
    }
  }

  #pump(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = this.#clock.now();
    let moved = false;
    // A slot kept for the watches' share: people wait until a watch took it, or the hold ends.
    const heldUntil = this.#share.heldUntil(now);
    while (this.#queue.length > 0) {
      const [next] = this.#slots(1, now);
      if (next === undefined || next > now) break;
      if (heldUntil > 0 && (this.#queue[0] as Entry).round > 0) break;
      const entry = this.#queue.shift() as Entry;
      this.#round = Math.max(this.#round, entry.round);
      const slot: Slot = { at: now, admittedAt: now, finished: false };
      this.#admissions.push(slot);
      if (this.#admissions.length > this.#limit) this.#admissions.shift();
      entry.state = 'fetching';
      this.#share.personTook();
      moved = true;
      void this.#run(entry, slot);
    }
    if (moved || this.#queue.length > 0) this.#notify();
    const [slot] = this.#slots(this.#queue.length > 0 ? 1 : 0, now);
    const next = slot === undefined ? undefined : Math.max(slot, heldUntil);
    if (next !== undefined) this.#timer = setTimeout(() => this.#pump(), Math.max(1, next - now));
  }

  async #run(entry: Entry, slot: Slot): Promise<void> {
    const priority: Priority = [...entry.waiters].some((w) => w.priority === 'interactive')
      ? 'interactive'
      : 'background';
    try {
      // Read "at" when asked: a check made of its answer (a person's report counts as one) is no older.
      const readAt = this.#clock.now();
      const report = await this.#fetchReport(entry.eventId, priority, entry.controller.signal);
      this.#cache?.set(entry.eventId, { report, readAt });
      this.#entries.delete(entry.eventId);
      for (const waiter of entry.waiters) {
        waiter.onProgress?.({ state: 'done', position: 0, estimatedWaitMs: 0 });
        waiter.resolve(report);
      }
    } catch (error) {
      if (isTicketingError(error) && error instanceof RateLimitedError && error.scope === 'report') {
        // Another key took the allowance: wait as told and keep this report's place at the head.
        this.#blockedUntil = Math.max(this.#blockedUntil, this.#clock.now() + error.retryAfterMs);
        if (entry.waiters.size > 0) {
          entry.state = 'queued';
          this.#queue.unshift(entry);
          entry.round = Math.min(entry.round, this.#round);
        } else {
          this.#entries.delete(entry.eventId);
        }
      } else {
        this.#entries.delete(entry.eventId);
        for (const waiter of entry.waiters) waiter.reject(error);
      }
    }
    slot.at = this.#clock.now();
    slot.finished = true;
    this.#pump();
  }
}
