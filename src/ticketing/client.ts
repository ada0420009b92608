import { z } from 'zod';
import { type Logger, silentLogger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { sleepOn, systemClock } from '../time/clock.js';
import type { BudgetPermit, BudgetSnapshot, Priority, RequestBudget } from './budget.js';
import { clientError, serverSays } from './client-errors.js';
import {
  cancellationError,
  InvalidRequestError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  SchemaError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from './errors.js';
import { idPathSegment, parseId } from './ids.js';
import { items, type Page, paginate } from './paginate.js';
import { promoQuantityProblem } from './promo-quantity.js';
import { type RateLimitObservation, readRateLimitHeaders } from './rate-limit-headers.js';
import { rateLimitWaitMs } from './retry-after.js';
import {
  type EventReport,
  eventSchema,
  listEnvelopeSchema,
  type PromoCode,
  promoSchema,
  reportSchema,
  type TicketingEvent,
} from './schemas.js';
import { type ApiRequest, type ApiResponse, type Transport, TransportError } from './transport.js';

/** Page size bounds of list endpoints (spec 4.1 rule 3). */
export const MAX_PAGE_SIZE = 100;

export interface RetryOptions {
  /** Attempts for one call that meets network errors, broken bodies or 5xx. @default 5 */
  maxAttempts?: number;
  /** First backoff step; each further step doubles, with full jitter. @default 200 */
  baseDelayMs?: number;
  /** Longest backoff step. @default 5000 */
  maxDelayMs?: number;
  /** 429s one call may wait out before it gives up with `RateLimitedError`. @default 10 */
  maxRateLimitWaits?: number;
}

/** Hears every answer the client gets (for metrics and readiness), never anything secret. */
export interface ApiObserver {
  /** `endpoint` with ids replaced (`GET /v1/events/{id}/report`); status 0 when no answer came. */
  response(endpoint: string, status: number): void;
  rateLimited(scope: 'organization' | 'report'): void;
}

/** `GET /v1/events/evt_…/report` → `GET /v1/events/{id}/report`: a label with few values. */
export function endpointLabel(request: Pick<ApiRequest, 'method' | 'path'>): string {
  const path = request.path.replace(
    /\/[^/]*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}[^/]*/gi,
    '/{id}',
  );
  return `${request.method} ${path}`;
}

export interface TicketingClientOptions {
  transport: Transport;
  /** The organization's budget, shared by every request of the process. */
  budget: RequestBudget;
  /** The organization's window in ms: a 429 never makes the client wait longer (plus jitter). */
  windowMs: number;
  /** The report endpoint's own limit (spec 8). */
  reportLimit: { limit: number; windowMs: number };
  retry?: RetryOptions;
  logger?: Logger;
  observer?: ApiObserver | undefined;
  clock?: Clock;
  /** Source of jitter; pass a seeded one for repeatable runs. @default Math.random */
  random?: () => number;
}

export interface CallOptions {
  /** @default 'interactive' */
  priority?: Priority;
  signal?: AbortSignal | undefined;
  /**
   * Longest this call may wait for the rate limit (a paused or spent budget, a 429). Beyond it the
   * call fails at once with `RateLimitedError` saying how long, instead of waiting in silence.
   * @default no limit
   */
  maxRateLimitWaitMs?: number | undefined;
}

export interface ListOptions extends CallOptions {
  /** Page size, clamped to 1..100. @default 100 */
  limit?: number;
  /** Stop with an error after this many pages. @default 1000 */
  maxPages?: number;
}

export interface PromoUpdate {
  eventId: string;
  promoId: string;
  quantity: number;
  /** What the service returned, best-effort (its body is not shown in the spec). */
  promo: PromoCode;
}

type LimitScope = 'organization' | 'report';

interface CallPlan {
  scope: LimitScope;
  /** Safe to send again after a network error or 5xx (GETs, and the promo update: an absolute set). */
  idempotent: boolean;
  /** Changes data: a failure after it was sent leaves its outcome unknown. */
  write: boolean;
  priority: Priority;
  maxRateLimitWaitMs?: number | undefined;
  /** A report call's own `X-RateLimit-*` headers, for the report queue that made it. */
  onReportHeaders?: ((observation: RateLimitObservation) => void) | undefined;
}

function clampPageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return MAX_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.trunc(limit)));
}

/** How one report is fetched: the report queue that admitted it passes its priority and hears its headers. */
export interface FetchReportOptions {
  /** @default 'interactive' */
  priority?: Priority;
  signal?: AbortSignal | undefined;
  /** The report endpoint's own `X-RateLimit-*` headers (spec 8 rule 3), on an answer or a report 429. */
  onHeaders?: ((observation: RateLimitObservation) => void) | undefined;
}

/**
 * The one client of the Event Ticketing Service. Every request goes through the organization's
 * budget; the report limit is kept by the report queues (`reports/queue/`), which call
 * `fetchReport` in their slots. It knows nothing of Slack.
 */
export class TicketingClient {
  readonly #transport: Transport;
  readonly #budget: RequestBudget;
  readonly #windowMs: number;
  readonly #reportLimit: { limit: number; windowMs: number };
  readonly #retry: Required<RetryOptions>;
  readonly #logger: Logger;
  readonly #observer: ApiObserver | undefined;
  readonly #clock: Clock;
  readonly #random: () => number;

  constructor(options: TicketingClientOptions) {
    this.#observer = options.observer;
    this.#transport = options.transport;
    this.#budget = options.budget;
    this.#windowMs = options.windowMs;
    this.#reportLimit = options.reportLimit;
    this.#logger = options.logger ?? silentLogger;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#retry = {
      maxAttempts: options.retry?.maxAttempts ?? 5,
      baseDelayMs: options.retry?.baseDelayMs ?? 200,
      maxDelayMs: options.retry?.maxDelayMs ?? 5_000,
      maxRateLimitWaits: options.retry?.maxRateLimitWaits ?? 10,
    };
  }

  /** One page of `GET /v1/events`. */
  async listEvents(options: ListOptions & { cursor?: string | undefined } = {}): Promise<Page<TicketingEvent>> {
    const response = await this.#call(
      {
        method: 'GET',
        path: '/v1/events',
        query: { limit: clampPageSize(options.limit), nextCursor: options.cursor },
        signal: options.signal,
      },
      {
        scope: 'organization',
        idempotent: true,
        write: false,
        priority: options.priority ?? 'interactive',
        maxRateLimitWaitMs: options.maxRateLimitWaitMs,
      },
    );
    return this.#eventsPage(response.body);
  }

  /** Every page of events, lazily: a page is requested only when the loop asks for it. */
  eventPages(options: ListOptions = {}): AsyncGenerator<Page<TicketingEvent>, void, undefined> {
    return paginate((cursor) => this.listEvents({ ...options, cursor }), {
      maxPages: options.maxPages ?? 1000,
    });
  }

  /** Every event, lazily, across pages. */
  events(options: ListOptions = {}): AsyncGenerator<TicketingEvent, void, undefined> {
    return items(this.eventPages(options));
  }

  /**
   * One report, fetched now through the organization's budget. Nothing here keeps the report
   * limit: a report queue calls it in one of its slots (a report 429 is thrown at once, for the
   * queue to wait on).
   */
  async fetchReport(eventId: string, options: FetchReportOptions = {}): Promise<EventReport> {
    const id = parseId('event', eventId);
    const response = await this.#call(
      { method: 'GET', path: `/v1/events/${idPathSegment(id)}/report`, signal: options.signal },
      {
        scope: 'report',
        idempotent: true,
        write: false,
        priority: options.priority ?? 'interactive',
        onReportHeaders: options.onHeaders,
      },
    );
    const parsed = reportSchema.safeParse(response.body);
    if (!parsed.success) throw new SchemaError(`The report of ${id} is not a JSON object`);
    return parsed.data;
  }

  /** Sets a promo code's redemption count, and nothing else (spec 4.2 note 1). */
  async updatePromoQuantity(
    eventId: string,
    promoId: string,
    quantity: number,
    options: CallOptions = {},
  ): Promise<PromoUpdate> {
    const event = parseId('event', eventId);
    const promo = parseId('promo', promoId);
    const problem = promoQuantityProblem(quantity);
    if (problem) throw new ValidationError(problem);
    const response = await this.#call(
      {
        method: 'POST',
        path: `/v1/events/${idPathSegment(event)}/promos/${idPathSegment(promo)}/update`,
        body: { quantity },
        signal: options.signal,
      },
      {
        scope: 'organization',
        idempotent: true,
        write: true,
        priority: options.priority ?? 'interactive',
        maxRateLimitWaitMs: options.maxRateLimitWaitMs,
      },
    );
    const parsed = promoSchema.parse(response.body ?? {});
    return {
      eventId: event,
      promoId: promo,
      quantity: parsed.quantity ?? quantity,
      promo: { id: parsed.id ?? promo, quantity: parsed.quantity ?? quantity, code: parsed.code },
    };
  }

  /** Verifies the key with the cheapest request there is, then tells where the budget stands. */
  async check(options: CallOptions = {}): Promise<BudgetSnapshot> {
    await this.listEvents({ ...options, limit: 1 });
    return this.#budget.snapshot();
  }

  budget(): Promise<BudgetSnapshot> {
    return this.#budget.snapshot();
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }

  #eventsPage(body: unknown): Page<TicketingEvent> {
    const envelope = listEnvelopeSchema.safeParse(body);
    if (!envelope.success) {
      throw new SchemaError(`GET /v1/events did not answer with a list envelope: ${z.prettifyError(envelope.error)}`);
    }
    const events: TicketingEvent[] = [];
    let skipped = 0;
    for (const record of envelope.data.data) {
      const parsed = eventSchema.safeParse(record);
      if (parsed.success) {
        events.push(parsed.data);
      } else {
        skipped += 1;
        const id = typeof record === 'object' && record !== null && 'id' in record ? String(record.id) : undefined;
        this.#logger.warn('Skipped an event record that does not match the spec', {
          eventId: id?.slice(0, 80),
          problem: z.prettifyError(parsed.error),
        });
      }
    }
    const pagination = envelope.data.pagination;
    return {
      items: events,
      skipped,
      nextCursor: pagination?.nextCursor ?? undefined,
      hasMore: pagination?.hasMore ?? false,
    };
  }

  #backoffMs(failures: number): number {
    const ceiling = Math.min(this.#retry.maxDelayMs, this.#retry.baseDelayMs * 2 ** (failures - 1));
    return Math.round(ceiling * this.#random());
  }

  /** Which limit a 429 on the report endpoint is about: its headers say, by their limit. */
  #scopeOf429(plan: CallPlan, response: ApiResponse): LimitScope {
    if (plan.scope === 'organization') return 'organization';
    const observed = readRateLimitHeaders(response.headers, response.receivedAt);
    return observed && observed.limit > this.#reportLimit.limit ? 'organization' : 'report';
  }

  async #call(request: ApiRequest, plan: CallPlan): Promise<ApiResponse> {
    const sent = { unanswered: false };
    try {
      return await this.#attempts(request, plan, sent);
    } catch (error) {
      // A write that may have arrived is not a failure: the person must hear "maybe", not "no".
      const definite =
        error instanceof InvalidRequestError || error instanceof NotFoundError || error instanceof UnauthorizedError;
      if (plan.write && sent.unanswered && !definite) {
        throw new OutcomeUnknownError(
          `${request.method} ${request.path} was sent but never answered, so it may or may not have been applied`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * One call, tried again as its plan allows: each attempt waits for the budget, is sent, and
   * settles the budget (`#settle`); a transport failure or a 5xx is retried with backoff when the
   * call is idempotent, an organization 429 after its wait (a report 429 is the report queue's:
   * thrown at once, `#rateLimited`).
   */
  async #attempts(request: ApiRequest, plan: CallPlan, sent: { unanswered: boolean }): Promise<ApiResponse> {
    const where = `${request.method} ${request.path}`;
    let failures = 0;
    let rateLimitWaits = 0;
    for (;;) {
      await this.#refuseLongWait(where, plan);
      const permit = await this.#budget.acquire(plan.priority, {
        signal: request.signal,
        retry: failures + rateLimitWaits > 0,
      });
      let response: ApiResponse;
      try {
        response = await this.#transport.send(request);
      } catch (error) {
        this.#transportFailed(error, request, plan, permit, sent);
        if (!(error instanceof TransportError) || !error.retryable || !plan.idempotent) throw error;
        failures += 1;
        if (failures >= this.#retry.maxAttempts) {
          throw new UnavailableError(`${where} failed ${failures} times; last: ${error.message}`, { cause: error });
        }
        this.#logger.debug('Retrying after a transport failure', { where, failures, reason: error.message });
        await this.#pause(this.#backoffMs(failures), request.signal);
        continue;
      }

      this.#observer?.response(endpointLabel(request), response.status);
      const observation = readRateLimitHeaders(response.headers, response.receivedAt);
      if (response.status === 429) {
        const waitMs = this.#rateLimited(where, plan, response, permit, observation);
        rateLimitWaits += 1;
        if (
          rateLimitWaits > this.#retry.maxRateLimitWaits ||
          waitMs > (plan.maxRateLimitWaitMs ?? Number.POSITIVE_INFINITY)
        ) {
          throw new RateLimitedError(
            `${where} was rate limited ${rateLimitWaits} times in a row`,
            { retryAfterMs: waitMs, scope: 'organization' },
            { status: 429 },
          );
        }
        continue;
      }
      this.#settle(plan, permit, observation);

      if (response.status >= 500) {
        failures += 1;
        if (!plan.idempotent || failures >= this.#retry.maxAttempts) {
          throw new UnavailableError(
            `${where} answered ${response.status} ${failures === 1 ? 'once' : `${failures} times`}${serverSays(response.body)}`,
            { status: response.status },
          );
        }
        this.#logger.debug('Retrying after a server error', { where, failures, status: response.status });
        await this.#pause(this.#backoffMs(failures), request.signal);
        continue;
      }
      if (response.status >= 400) throw clientError(where, response.status, response.body);
      if (failures > 0) this.#logger.debug('Recovered after retries', { where, failures });
      return response;
    }
  }

  /** A call that got no answer: counted, and the budget settled with what its error carried. */
  #transportFailed(
    error: unknown,
    request: ApiRequest,
    plan: CallPlan,
    permit: BudgetPermit,
    sent: { unanswered: boolean },
  ): void {
    this.#observer?.response(endpointLabel(request), 0);
    if (!(error instanceof TransportError && error.neverSent)) sent.unanswered = true;
    const observation =
      error instanceof TransportError && error.headers && plan.scope === 'organization'
        ? readRateLimitHeaders(error.headers, error.receivedAt ?? this.#clock.now())
        : undefined;
    permit.settle(observation ? { kind: 'answered', observation } : { kind: 'unobserved' });
  }

  /**
   * A 429, of one of two kinds: the report endpoint's own limit (thrown at once, for the report
   * queue to wait on with every replica) or the organization's (the budget waits, and the wait is
   * returned for the caller to try again).
   */
  #rateLimited(
    where: string,
    plan: CallPlan,
    response: ApiResponse,
    permit: BudgetPermit,
    observation: RateLimitObservation | undefined,
  ): number {
    const scope = this.#scopeOf429(plan, response);
    this.#observer?.rateLimited(scope);
    const windowMs = scope === 'report' ? this.#reportLimit.windowMs : this.#windowMs;
    const waitMs = rateLimitWaitMs(response.headers, { windowMs, now: this.#clock.now(), random: this.#random });
    this.#logger.warn('Rate limited by the service', { where, scope, waitMs });
    if (scope === 'report') {
      permit.settle({ kind: 'unobserved' });
      if (observation) this.#observeReport(plan, observation);
      throw new RateLimitedError(`The report limit is used up; retry in ${Math.ceil(waitMs / 1000)} s`, {
        retryAfterMs: waitMs,
        scope,
      });
    }
    permit.settle({ kind: 'rate-limited', waitMs });
    return waitMs;
  }

  /** An answer settles the budget with its headers, unless they describe the report's own limit (spec 8 rule 3). */
  #settle(plan: CallPlan, permit: BudgetPermit, observation: RateLimitObservation | undefined): void {
    if (plan.scope === 'organization') {
      permit.settle({ kind: 'answered', observation });
      return;
    }
    permit.settle({ kind: 'unobserved' });
    if (observation) this.#observeReport(plan, observation);
  }

  /** The report's own headers, for the report queue that made the call. */
  #observeReport(plan: CallPlan, observation: RateLimitObservation): void {
    try {
      plan.onReportHeaders?.(observation);
    } catch (error) {
      this.#logger.warn('A report headers listener failed', { error });
    }
  }

  /** Fails fast when the budget cannot admit this call within the caller's patience. */
  async #refuseLongWait(where: string, plan: CallPlan): Promise<void> {
    if (plan.maxRateLimitWaitMs === undefined) return;
    const waitMs = await this.#budget.estimatedWaitMs(plan.priority);
    if (waitMs > plan.maxRateLimitWaitMs) {
      throw new RateLimitedError(`${where} would wait ${Math.ceil(waitMs / 1000)} s for the request budget`, {
        retryAfterMs: waitMs,
        scope: 'organization',
      });
    }
  }

  async #pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleepOn(this.#clock, ms, signal);
    } catch {
      throw signal ? cancellationError(signal) : new UnavailableError('Interrupted while backing off');
    }
  }
}
