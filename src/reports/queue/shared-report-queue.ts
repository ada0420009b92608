import { AsyncLocalStorage } from 'node:async_hooks';
import { type Job, Queue, Worker } from 'bullmq';
import { type Logger, silentLogger } from '../../logger.js';
import { RateLimitedError } from '../../ticketing/errors.js';
import { assertRateLimit, type RateLimitSpec } from '../../ticketing/rate-limit.js';
import type { RateLimitObservation } from '../../ticketing/rate-limit-headers.js';
import type { EventReport } from '../../ticketing/schemas.js';
import type { ScriptRunner } from '../../ticketing/shared-budget.js';
import { type Clock, every, systemClock } from '../../time/clock.js';
import { closeWorkerAndQueue, scriptRunner } from './bull-connection.js';
import type { ReportCache } from './report-cache.js';
import { REPORT_DEADLINE_MS, reportDeadlineError } from './report-deadline.js';
import type { CachedReport, CacheReadOptions, ReportOutcome } from './report-queue.js';
import { lookAtQueue, type ReportQueueKeys, type ReportQueueView } from './report-queue-view.js';
import { ReportSlots } from './report-slots.js';
import type { ReportJob, SharedReportProgress, SubmitOptions } from './shared-report-job.js';
import type { SharedReportQueueOptions } from './shared-report-options.js';
import { SharedReportTurns } from './shared-report-turns.js';
import { type ReportHold, SharedReportWaiting } from './shared-report-waiting.js';

/**
 * The report queue shared by every replica, on BullMQ: requests are persisted in Redis, and a job
 * held by a replica that dies is taken back by the stalled-job check and fetched by another, which
 * answers in the same Slack message. People take turns (`TURN`): one person's ten requests do not
 * put a second person's one behind all ten. The report limit is the in-process queue's rolling window,
 * kept in Redis for all replicas (`ReportSlots`): a job starts its call only with a slot, and goes
 * back to the head of its round, every worker paused for the exact wait, when there is none.
 */
export class SharedReportQueue<D> {
  readonly #queue: Queue;
  readonly #worker: Worker;
  readonly #limit: RateLimitSpec;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #ready: Promise<unknown>;
  readonly #cache: ReportCache | undefined;
  readonly #slots: ReportSlots;
  readonly #waiting: SharedReportWaiting;
  /** Holds of the requests submitted here, given back when their follower sees them end. */
  readonly #holdOf = new Map<string, ReportHold>();
  readonly #run: ScriptRunner;
  readonly #keys: ReportQueueKeys;
  /** People's turns across replicas. */
  readonly #turns: SharedReportTurns;
  readonly #lockMs: number;
  readonly #deadlineMs: number;
  readonly #snapshotMs: number;
  /** The slot of the call in progress, so that its answer's headers are matched to it. */
  readonly #currentSlot = new AsyncLocalStorage<string>();
  /** Jobs submitted here whose person this replica keeps informed, with their deadlines. */
  readonly #followed = new Map<string, number>();
  /** Jobs this replica is working on now (Redis may have lost every trace of them). */
  readonly #inHand = new Set<string>();
  #view: { at: number; view: Promise<ReportQueueView> } | undefined;

  constructor(options: SharedReportQueueOptions<D>) {
    assertRateLimit(options.limit);
    const name = options.name ?? 'eventops-reports';
    const prefix = options.prefix ?? 'bull';
    const connection = { ...options.connection, maxRetriesPerRequest: null };
    this.#limit = options.limit;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#cache = options.cache;
    this.#deadlineMs = options.deadlineMs ?? REPORT_DEADLINE_MS;
    this.#snapshotMs = options.progressSnapshotMs ?? 500;
    this.#queue = new Queue(name, {
      connection,
      prefix,
      // A job whose handler throws (Redis refusing a write for a moment: a failover, OOM) is tried
      // again; one that still fails is told to its person as not fetched (`#progressOf`).
      defaultJobOptions: {
        removeOnComplete: { count: 1000 },
        removeOnFail: { count: 1000 },
        attempts: 3,
        backoff: { type: 'fixed', delay: options.retryDelayMs ?? 1_000 },
      },
    });
    // BullMQ's own limit (fixed windows from a job's start) only spares Redis needless starts; the
    // rolling slots are the rule. Its limiter key is also how every worker is paused for a wait.
    this.#ready = this.#queue.setGlobalRateLimit(options.limit.limit, options.limit.windowMs);
    // Whoever awaits it (start, submit) hears a failure; it is not an unhandled rejection meanwhile.
    this.#ready.catch(() => undefined);
    this.#lockMs = options.lockMs ?? 30_000;
    this.#run = scriptRunner(this.#queue);
    // A dead holder's slot lapses a window after its last renewal could have let its call out.
    this.#slots = new ReportSlots({
      run: this.#run,
      key: this.#queue.toKey('rolling'),
      limit: options.limit.limit,
      windowMs: options.limit.windowMs,
      leaseMs: this.#lockMs + options.limit.windowMs,
      ...(options.watchShare ? { watchShare: options.watchShare } : {}),
    });
    this.#waiting = new SharedReportWaiting({
      run: this.#run,
      keyOf: (requester) => this.#queue.toKey(`waiting:${requester}`),
      limits: options.waiting,
      // As long as a request may wait and be in hand.
      keepMs: this.#deadlineMs + this.#lockMs,
    });
    const bullKeys = this.#queue.keys;
    this.#keys = {
      wait: bullKeys.wait as string,
      prioritized: bullKeys.prioritized as string,
      active: bullKeys.active as string,
      slots: this.#slots.keys.slots,
      state: this.#slots.keys.state,
    };
    this.#turns = SharedReportTurns.of(this.#queue, {
      run: this.#run,
      deadlineMs: this.#deadlineMs,
      lockMs: this.#lockMs,
      turnWaitMs: options.turnWaitMs,
      logger: this.#logger,
    });
    this.#worker = new Worker<ReportJob<D>>(name, (job, _token, signal) => this.#process(job, options, signal), {
      connection,
      prefix,
      autorun: false,
      concurrency: options.limit.limit,
      limiter: { max: options.limit.limit, duration: options.limit.windowMs },
      lockDuration: this.#lockMs,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 3,
    });
    this.#worker.on('error', (error) => this.#logger.warn('The report worker lost Redis for a moment', { error }));
    // A job whose holder stopped renewing it (died, or stalled past its lock) is run again elsewhere.
    this.#worker.on('stalled', (jobId) =>
      this.#logger.warn('A report job was taken over from a stalled holder', { jobId }),
    );
    this.#worker.on('lockRenewalFailed', (jobIds) =>
      this.#logger.warn('Could not renew the hold on report jobs; another replica may fetch them too', { jobIds }),
    );
  }

  /** Starts fetching reports on this replica. */
  start(): void {
    void this.#ready
      .then(() => this.#worker.run())
      .catch((error: unknown) => {
        this.#logger.error('The report worker stopped', { error });
      });
  }

  /** A report fetched lately, if any replica has one (read after `readAfterMs`, when given). */
  async cached(eventId: string, options: CacheReadOptions = {}): Promise<CachedReport | undefined> {
    return this.#cache?.get(eventId, options).catch(() => undefined);
  }

  /**
   * Holds a place for `requester`'s report of `eventId` among the reports they may have waiting,
   * before anything is shown or queued: rejects with `TooManyReportsWaitingError` (no call made)
   * when they have their limit waiting. Pass it to `submit`, or `release` it if nothing is.
   */
  async reserve(
    eventId: string,
    requester: string,
    options: Pick<SubmitOptions, 'requesterKind' | 'label'> = {},
  ): Promise<ReportHold> {
    await this.#ready;
    return this.#waiting.admit(requester, options.requesterKind, { eventId, label: options.label });
  }

  /** Gives back a place held by `reserve` for a request that was not submitted. */
  async release(hold: ReportHold): Promise<void> {
    await this.#waiting.release(hold);
  }

  /**
   * Persists a report request in its person's turn (`requester`: a Slack user id; without one it
   * joins the current round, as someone new would); its id is for progress. With a requester it
   * counts among the reports they wait for until answered: rejects with
   * `TooManyReportsWaitingError` (nothing queued) when they have their limit waiting.
   */
  async submit(eventId: string, delivery: D, requester?: string, options: SubmitOptions = {}): Promise<string> {
    await this.#ready;
    const hold = options.hold ?? (requester ? await this.reserve(eventId, requester, options) : undefined);
    try {
      const requestedAt = this.#clock.now();
      const { round, priority } = await this.#turns.next(requester);
      const data: ReportJob<D> = {
        eventId,
        delivery,
        requestedAt,
        round,
        ...(options.fresh ? { fresh: true } : {}),
        ...(hold ? { hold } : {}),
      };
      const job = await this.#queue.add('report', data, { priority });
      const id = job.id as string;
      this.#followed.set(id, requestedAt + this.#deadlineMs);
      if (hold) this.#holdOf.set(id, hold);
      return id;
    } catch (error) {
      if (hold) await this.#release(hold);
      throw error;
    }
  }

  /** Best effort: a hold not given back lapses once its request could no longer wait. */
  async #release(hold: ReportHold): Promise<void> {
    await this.#waiting
      .release(hold)
      .catch((error: unknown) => this.#logger.warn('Could not give back a place among reports waiting', { error }));
  }

  /**
   * Where a request submitted here stands: its place and a wait by the rolling limit. One look at
   * the queue (at most `progressSnapshotMs` old) serves every request this replica follows, and
   * each asks only whether its own job still exists, so a round of N people costs O(N), not N
   * reads of the whole queue. A request past its deadline is taken out of the queue (`expired`);
   * one Redis no longer holds (flushed, evicted) is `lost` at the first look after.
   */
  async progress(jobId: string): Promise<SharedReportProgress> {
    const progress = await this.#progressOf(jobId);
    // A job being fetched may yet go back to the queue (`#sendBack`), where its deadline still holds.
    if (progress.state !== 'queued' && progress.state !== 'fetching') this.#followed.delete(jobId);
    // Out of the queue for good without an answer: its place among its requester's is given back.
    const hold = this.#holdOf.get(jobId);
    if (progress.state !== 'queued' && progress.state !== 'fetching') this.#holdOf.delete(jobId);
    if (hold && (progress.state === 'expired' || progress.state === 'lost')) await this.#release(hold);
    return progress;
  }

  async #progressOf(jobId: string): Promise<SharedReportProgress> {
    const [view, held] = await Promise.all([this.#look(), this.#holds(jobId)]);
    if (!held) return this.#withoutData(jobId);
    let position = view.positions.get(jobId);
    if (position === undefined) {
      if (view.active.has(jobId)) return { state: 'fetching', position: 0, estimatedWaitMs: 0 };
      // Not in the look: asked after it, finished since, or gone.
      const state = await this.#queue.getJobState(jobId);
      if (state === 'unknown') return { state: 'lost' };
      if (state === 'active') return { state: 'fetching', position: 0, estimatedWaitMs: 0 };
      if (state === 'completed') return { state: 'done', position: 0, estimatedWaitMs: 0 };
      // Failed for good (its handler threw on every attempt, or it stalled too often): never
      // delivered, unless it was answered before it failed.
      if (state === 'failed') return this.#answeredOrLost(jobId);
      position = view.waitingCount + 1;
    }
    const deadline = this.#followed.get(jobId);
    if (deadline !== undefined && this.#clock.now() >= deadline) {
      // The in-process queue's rule: past its deadline, a waiting request leaves the queue and its person is told.
      if ((await this.#queue.remove(jobId)) === 1) return { state: 'expired', error: reportDeadlineError() };
      // Not removable: a replica has just taken it (it tells the person), or it is gone.
      const state = await this.#queue.getJobState(jobId);
      return state === 'unknown' ? { state: 'lost' } : { state: 'fetching', position: 0, estimatedWaitMs: 0 };
    }
    const waitMs = view.waits[position - 1] ?? view.waits[view.waits.length - 1] ?? 0;
    return { state: 'queued', position, estimatedWaitMs: Math.max(0, waitMs) };
  }

  /**
   * A job whose data Redis no longer holds is lost, unless a replica has it in hand: this one (it
   * knows), or one that has answered it (its mark, written after the data was gone). One taken by
   * another replica just before a flush is told lost, then answered: the answer comes last.
   */
  async #withoutData(jobId: string): Promise<SharedReportProgress> {
    if (this.#inHand.has(jobId)) return { state: 'fetching', position: 0, estimatedWaitMs: 0 };
    return this.#answeredOrLost(jobId);
  }

  async #answeredOrLost(jobId: string): Promise<SharedReportProgress> {
    const client = await this.#queue.client;
    if ((await client.get(this.#answeredKey(jobId))) !== null)
      return { state: 'done', position: 0, estimatedWaitMs: 0 };
    return { state: 'lost' };
  }

  #answeredKey(jobId: string): string {
    return this.#queue.toKey(`answered:${jobId}`);
  }

  /** Whether Redis still holds the job's data (an evicted or flushed job's is gone). */
  async #holds(jobId: string): Promise<boolean> {
    const client = await this.#queue.client;
    return (await client.hexists(this.#queue.toKey(jobId), 'data')) === 1;
  }

  /** One look at the queue shared by every progress asked within `progressSnapshotMs` (a failed one is not kept). */
  #look(): Promise<ReportQueueView> {
    // The look's age is the process's own elapsed time (an injected clock may stand still).
    const at = performance.now();
    if (this.#view && at - this.#view.at <= this.#snapshotMs) return this.#view.view;
    // Requests long past their deadline are no longer followed (their follower stopped).
    const now = this.#clock.now();
    for (const [id, deadline] of this.#followed) {
      if (deadline + this.#deadlineMs >= now) continue;
      this.#followed.delete(id);
      this.#holdOf.delete(id);
    }
    const view = lookAtQueue(this.#run, this.#keys, this.#limit);
    const entry = { at, view };
    this.#view = entry;
    view.catch(() => {
      if (this.#view === entry) this.#view = undefined;
    });
    return view;
  }

  /**
   * Follows the report endpoint's own headers for every replica: when they say its allowance is
   * spent (by us or another key), no replica starts a report until their reset.
   */
  observe(observation: RateLimitObservation): void {
    void this.#slots
      .observe(observation, this.#clock.now(), this.#currentSlot.getStore())
      .catch((error: unknown) => this.#logger.warn('Could not share the report limit headers', { error }));
  }

  /**
   * A report for background work (a watch), only from a slot nobody waits for: from the shared
   * cache, or fetched now when no request waits in Redis (`ANYONE_WAITING`: a job a worker has
   * just taken and not yet started counts too) and the rolling limit has a slot free; else
   * undefined. Its slot is taken and freed like a person's (a report 429 holds every replica back).
   */
  async spare(
    eventId: string,
    fetch: (signal: AbortSignal) => Promise<EventReport>,
    options: CacheReadOptions = {},
  ): Promise<EventReport | undefined> {
    const cached = await this.cached(eventId, options);
    if (cached) return cached.report;
    await this.#ready;
    // With people waiting, only the watches' share (`ReportSlots.takeSpare`).
    const slot = await this.#slots.takeSpare(await this.#turns.anyoneWaiting());
    if (slot === undefined) return undefined;
    const { outcome } = await this.#inSlot(slot, eventId, () => fetch(AbortSignal.timeout(this.#deadlineMs)));
    if (outcome.kind === 'failed') throw outcome.error;
    return outcome.report;
  }

  /**
   * One report call in its slot, the one sequence for a person's and a watch's: the slot renewed
   * while the call runs, the report cached as read when the call went out, the slot freed (a
   * window after the call finished, longer after a report 429, which holds every replica back).
   */
  async #inSlot(
    slot: string,
    eventId: string,
    call: () => Promise<EventReport>,
  ): Promise<{ outcome: ReportOutcome; rateLimitedForMs: number }> {
    const renewal = every(this.#clock, this.#lockMs / 2, () => {
      this.#slots.renew(slot).catch((error: unknown) => this.#logger.warn('Could not renew a report slot', { error }));
    });
    let rateLimitedForMs = 0;
    let outcome: ReportOutcome;
    try {
      const readAt = this.#clock.now();
      const report = await this.#currentSlot.run(slot, call);
      await this.#cache?.set(eventId, report, readAt).catch(() => undefined);
      outcome = { kind: 'report', report };
    } catch (error) {
      if (error instanceof RateLimitedError && error.scope === 'report') rateLimitedForMs = error.retryAfterMs;
      outcome = { kind: 'failed', error };
    } finally {
      renewal.stop();
    }
    await this.#slots
      .finish(slot, rateLimitedForMs)
      .catch((error: unknown) => this.#logger.warn('Could not free a report slot', { error }));
    return { outcome, rateLimitedForMs };
  }

  /** Report requests waiting in Redis, across replicas. */
  async waiting(): Promise<number> {
    const counts = await this.#queue.getJobCounts('waiting', 'prioritized', 'delayed');
    return (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
  }

  /** Stops taking jobs, lets the ones in hand finish, and leaves the waiting ones to other replicas. */
  async close(): Promise<void> {
    await closeWorkerAndQueue(this.#worker, this.#queue);
  }

  async #process(job: Job<ReportJob<D>>, options: SharedReportQueueOptions<D>, signal: AbortSignal | undefined) {
    const id = job.id as string;
    this.#inHand.add(id);
    try {
      await this.#answer(job, options, signal);
    } finally {
      this.#inHand.delete(id);
    }
  }

  async #answer(job: Job<ReportJob<D>>, options: SharedReportQueueOptions<D>, signal: AbortSignal | undefined) {
    const data = job.data as Partial<ReportJob<D>> | undefined;
    const id = job.id as string;
    if (typeof data?.eventId !== 'string' || typeof data.requestedAt !== 'number') {
      // Its hash was evicted or flushed: nothing says whom to answer (the asking replica says "lost").
      this.#logger.warn('A report job without its data was dropped', { jobId: job.id });
      await this.#turns.started(id, undefined);
      return;
    }
    const request = job.data;
    const deadline = request.requestedAt + this.#deadlineMs;
    let outcome: ReportOutcome;
    // Asked twice while queued: the second job finds the first one's report (unless asked fresh).
    const cached = request.fresh ? undefined : await this.cached(request.eventId);
    if (cached) {
      await this.#turns.started(id, request.round);
      outcome = { kind: 'report', report: cached.report };
    } else if (this.#clock.now() >= deadline) {
      // Its asker's replica, which would have taken it out of the queue, is gone.
      await this.#turns.started(id, request.round);
      outcome = { kind: 'failed', error: reportDeadlineError() };
    } else {
      // Not its turn: back behind the one whose turn it is, under the pause that one went back with.
      if (!(await this.#turns.inTurn(id, job.priority))) return this.#sendBack(id, 0);
      const grant = await this.#slots.take();
      // No slot: back to the head of its round, every worker paused until one may free.
      if ('waitMs' in grant) return this.#sendBack(id, grant.waitMs);
      await this.#turns.started(id, request.round);
      outcome = await this.#fetch(id, request, grant.slot, options, signal, deadline);
    }
    // Answered: no longer among the reports its requester waits for.
    if (request.hold) await this.#release(request.hold);
    try {
      // Marked before the answer goes out, so that its asker's replica never says "lost" after it.
      const client = await this.#queue.client;
      await client.set(this.#answeredKey(job.id as string), '1', { PX: this.#deadlineMs });
    } catch (error) {
      this.#logger.warn('Could not mark a report answered', { eventId: request.eventId, error });
    }
    try {
      await options.deliver(request, outcome);
    } catch (error) {
      this.#logger.warn('Could not deliver a report', { eventId: request.eventId, error });
    }
  }

  /** One report call in its slot: the slot is renewed while it runs and frees a window after it finished. */
  async #fetch(
    jobId: string,
    request: ReportJob<D>,
    slot: string,
    options: SharedReportQueueOptions<D>,
    signal: AbortSignal | undefined,
    deadline: number,
  ): Promise<ReportOutcome> {
    const late = AbortSignal.timeout(Math.max(1, deadline - this.#clock.now()));
    const { outcome, rateLimitedForMs } = await this.#inSlot(slot, request.eventId, () =>
      options.fetchReport(request.eventId, signal ? AbortSignal.any([signal, late]) : late),
    );
    // Another key used the report allowance: every replica waits as told, and this job goes back.
    if (rateLimitedForMs > 0) return this.#sendBack(jobId, rateLimitedForMs);
    return outcome;
  }

  /**
   * Puts the job in hand back at the head of its round (`SEND_BACK`), every worker paused for
   * `waitMs` (none: a pause already set holds).
   */
  async #sendBack(jobId: string, waitMs: number): Promise<never> {
    if (waitMs > 0) await this.#queue.rateLimit(waitMs);
    await this.#turns.sendBack(jobId);
    throw Worker.RateLimitError();
  }
}
