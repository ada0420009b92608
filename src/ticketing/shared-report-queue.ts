import { type Job, Queue, Worker } from 'bullmq';
import { type Logger, silentLogger } from '../logger.js';
import type { RedisConnection } from '../store/opened-store.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { RateLimitedError } from './errors.js';
import { assertRateLimit, type RateLimitSpec } from './rate-limit.js';
import type { RateLimitObservation } from './rate-limit-headers.js';
import type { ReportProgress } from './report-queue.js';
import type { EventReport } from './schemas.js';

/** A report request as it waits in Redis: the event, and where its answer goes. */
export interface ReportJob<D> {
  eventId: string;
  /** Enough to reach the person from any replica (JSON: a channel and message, a response URL). */
  delivery: D;
  requestedAt: number;
}

export type ReportOutcome = { kind: 'report'; report: EventReport } | { kind: 'failed'; error: unknown };

/** Finished reports every replica can serve for a while, so the same report is not fetched twice. */
export interface ReportCache {
  get(eventId: string): Promise<EventReport | undefined>;
  set(eventId: string, report: EventReport): Promise<void>;
}

export interface SharedReportQueueOptions<D> {
  /** Where BullMQ connects: the shared Redis. */
  connection: RedisConnection;
  /** @default 'eventops-reports' */
  name?: string;
  /** The report endpoint's limit, for all replicas together (the spec's 3 per minute). */
  limit: RateLimitSpec;
  /** Fetches one report through the organization's budget. */
  fetchReport(eventId: string, signal: AbortSignal | undefined): Promise<EventReport>;
  /** Hands the outcome to the person, from whichever replica fetched it. */
  deliver(job: ReportJob<D>, outcome: ReportOutcome): Promise<void>;
  /** Where finished reports are kept for the others (the spec's limit makes each one dear). */
  cache?: ReportCache | undefined;
  /**
   * How long a replica holds a job before others may take it (renewed while it lives), and how
   * often stalled jobs are looked for: a killed replica's report is fetched by another within
   * about their sum. @default 30000 each
   */
  lockMs?: number;
  stalledIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
}

const QUEUED_STATES = new Set(['waiting', 'prioritized', 'delayed', 'waiting-children']);

/**
 * The report queue shared by every replica, on BullMQ: requests are persisted in Redis, the
 * report limit is one queue-wide rate limit, and a job held by a replica that dies is taken back
 * by the stalled-job check and fetched by another, which answers in the same Slack message.
 */
export class SharedReportQueue<D> {
  readonly #queue: Queue;
  readonly #worker: Worker;
  readonly #limit: RateLimitSpec;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #ready: Promise<unknown>;
  readonly #cache: ReportCache | undefined;

  constructor(options: SharedReportQueueOptions<D>) {
    assertRateLimit(options.limit);
    const name = options.name ?? 'eventops-reports';
    const connection = { ...options.connection, maxRetriesPerRequest: null };
    this.#limit = options.limit;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#cache = options.cache;
    this.#queue = new Queue(name, {
      connection,
      defaultJobOptions: { removeOnComplete: { count: 1000 }, removeOnFail: { count: 1000 } },
    });
    this.#ready = this.#queue.setGlobalRateLimit(options.limit.limit, options.limit.windowMs);
    // Whoever awaits it (start, submit) hears a failure; it is not an unhandled rejection meanwhile.
    this.#ready.catch(() => undefined);
    const lockMs = options.lockMs ?? 30_000;
    this.#worker = new Worker<ReportJob<D>>(name, (job, _token, signal) => this.#process(job, options, signal), {
      connection,
      autorun: false,
      concurrency: options.limit.limit,
      limiter: { max: options.limit.limit, duration: options.limit.windowMs },
      lockDuration: lockMs,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 3,
    });
    this.#worker.on('error', (error) => this.#logger.warn('The report worker lost Redis for a moment', { error }));
  }

  /** Starts fetching reports on this replica. */
  start(): void {
    void this.#ready
      .then(() => this.#worker.run())
      .catch((error: unknown) => {
        this.#logger.error('The report worker stopped', { error });
      });
  }

  /** A report fetched lately, if any replica has one. */
  async cached(eventId: string): Promise<EventReport | undefined> {
    return this.#cache?.get(eventId).catch(() => undefined);
  }

  /** Persists a report request; its id is for progress. */
  async submit(eventId: string, delivery: D): Promise<string> {
    await this.#ready;
    const job = await this.#queue.add('report', { eventId, delivery, requestedAt: this.#clock.now() });
    return job.id as string;
  }

  /** Where a request stands: its place among the waiting and a rough wait by the limit. */
  async progress(jobId: string): Promise<ReportProgress> {
    const job = await this.#queue.getJob(jobId);
    const state = job ? await job.getState() : 'unknown';
    if (!QUEUED_STATES.has(state)) {
      return { state: state === 'active' ? 'fetching' : 'done', position: 0, estimatedWaitMs: 0 };
    }
    const waiting = await this.#queue.getJobs(['waiting', 'prioritized', 'delayed'], 0, 999, true);
    const index = waiting.findIndex((candidate) => candidate.id === jobId);
    const position = index >= 0 ? index + 1 : waiting.length + 1;
    const ttl = Math.max(0, await this.#queue.getRateLimitTtl(this.#limit.limit));
    const windowsAhead = Math.floor((position - 1) / this.#limit.limit);
    return { state: 'queued', position, estimatedWaitMs: ttl + windowsAhead * this.#limit.windowMs };
  }

  /**
   * Follows the report endpoint's own headers: when they say its window is spent (by us or by
   * another key), no replica starts a report until the window resets.
   */
  observe(observation: RateLimitObservation): void {
    const waitMs = observation.resetAt - this.#clock.now();
    if (observation.remaining > 0 || waitMs <= 0) return;
    void this.#queue
      .rateLimit(Math.min(waitMs, this.#limit.windowMs * 1.1))
      .catch((error: unknown) => this.#logger.warn('Could not pause the report queue', { error }));
  }

  /** Report requests waiting in Redis, across replicas. */
  async waiting(): Promise<number> {
    const counts = await this.#queue.getJobCounts('waiting', 'prioritized', 'delayed');
    return (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
  }

  /** Stops taking jobs, lets the ones in hand finish, and leaves the waiting ones to other replicas. */
  async close(): Promise<void> {
    await this.#worker.close().catch(() => undefined);
    await this.#queue.close().catch(() => undefined);
  }

  async #process(job: Job<ReportJob<D>>, options: SharedReportQueueOptions<D>, signal: AbortSignal | undefined) {
    let outcome: ReportOutcome;
    try {
      // Asked twice while queued: the second job finds the first one's report.
      const cached = await this.cached(job.data.eventId);
      const report = cached ?? (await options.fetchReport(job.data.eventId, signal));
      if (!cached) await this.#cache?.set(job.data.eventId, report).catch(() => undefined);
      outcome = { kind: 'report', report };
    } catch (error) {
      if (error instanceof RateLimitedError && error.scope === 'report') {
        // Another key used the report allowance: every replica waits as told, and this job goes back.
        await this.#worker.rateLimit(error.retryAfterMs);
        throw Worker.RateLimitError();
      }
      outcome = { kind: 'failed', error };
    }
    try {
      await options.deliver(job.data, outcome);
    } catch (error) {
      this.#logger.warn('Could not deliver a report', { eventId: job.data.eventId, error });
    }
  }
}
