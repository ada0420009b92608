import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { isStoreError, type KeyValueStore, StoreError } from '../store/key-value-store.js';
import {
  CancelledError,
  InvalidRequestError,
  isTicketingError,
  NotFoundError,
  OutcomeUnknownError,
  PaginationError,
  RateLimitedError,
  SchemaError,
  type TicketingError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from '../ticketing/errors.js';
import type { EventReport } from '../ticketing/schemas.js';
import { type Clock, sleep } from '../time/clock.js';
import { REPORT_DEADLINE_MS } from './queue/report-deadline.js';
import type { ReportFlow } from './report-flow.js';
import { isFinal, type ReportStatus } from './report-status.js';
import type { ReportAsk, ReportView } from './report-surface.js';

/**
 * A caller waiting for a report on the replica that asked (a promo code looked up in it), rather
 * than a person's message: the replica that fetches the report leaves the outcome in the store
 * under `key`, for the waiting one to read.
 */
export interface ReplyTarget {
  kind: 'reply';
  key: string;
}

/** A ticketing error as it crosses replicas (JSON): enough for the same words on the other side. */
interface ErrorReply {
  code: string;
  message: string;
  retryAfterMs?: number | undefined;
  scope?: 'organization' | 'report' | undefined;
}

type Reply = { report: EventReport } | { error: ErrorReply };

/** How long a reply waits in the store for its reader (who reads it within one poll, if alive). */
const REPLY_TTL_MS = 5 * 60_000;
/** How often the waiting replica looks for the reply of a report another replica fetches. */
const REPLY_POLL_MS = 250;

const replyKey = (key: string) => `report-reply:${key}`;

/** The error a status other than the report stands for, as the waiting caller gets it. */
function errorOf(status: Exclude<ReportStatus, { state: 'report' | 'queued' | 'fetching' }>): unknown {
  switch (status.state) {
    case 'failed':
    case 'expired':
      return status.error;
    case 'lost':
      return new StoreError('Redis lost the report request (emptied or evicted) before it was fetched');
    case 'abandoned':
      return new CancelledError('eventops was shutting down before the report was fetched');
  }
}

function errorReply(error: unknown): ErrorReply {
  if (isStoreError(error)) return { code: error.code, message: error.message };
  if (!isTicketingError(error)) return { code: 'internal', message: 'The report could not be fetched' };
  const limited = error instanceof RateLimitedError ? { retryAfterMs: error.retryAfterMs, scope: error.scope } : {};
  return { code: error.code, message: error.message, ...limited };
}

/** The error a reply stands for, rebuilt so that it reads as it did where it happened. */
function errorFrom(reply: ErrorReply): Error {
  const classes: Record<string, new (message: string) => TicketingError> = {
    invalid_input: ValidationError,
    invalid_request: InvalidRequestError,
    unauthorized: UnauthorizedError,
    not_found: NotFoundError,
    unavailable: UnavailableError,
    schema: SchemaError,
    pagination: PaginationError,
    cancelled: CancelledError,
    outcome_unknown: OutcomeUnknownError,
  };
  if (reply.code === 'rate_limited') {
    return new RateLimitedError(reply.message, {
      retryAfterMs: reply.retryAfterMs ?? 60_000,
      scope: reply.scope ?? 'report',
    });
  }
  if (reply.code === 'store_unavailable') return new StoreError(reply.message);
  const Class = classes[reply.code];
  return Class ? new Class(reply.message) : new Error(reply.message);
}

/**
 * On the replica that fetched the report: its outcome, left in the store for the waiting caller.
 * Given once, to a program: no edits to order, nobody's App Home.
 */
export function replyView(store: Pick<KeyValueStore, 'set'>, where: ReplyTarget, log: Logger): ReportView<ReplyTarget> {
  return {
    where,
    kind: 'result',
    async show(status) {
      if (!isFinal(status)) return;
      const reply: Reply =
        status.state === 'report' ? { report: status.report } : { error: errorReply(errorOf(status)) };
      await store
        .set(replyKey(where.key), reply, REPLY_TTL_MS)
        .catch((error: unknown) => log.warn('Could not leave a report for the replica waiting for it', { error }));
    },
  };
}

export interface AwaitReportDeps {
  /** Where another replica leaves the report (absent in one process, where the flow answers here). */
  store: Pick<KeyValueStore, 'get' | 'delete'> | undefined;
  /**
   * The replicas' shared cache of finished reports, looked at too while waiting: the replica that
   * fetched it caches it before it delivers, so a reply it could not leave is not waited for.
   */
  cached?: ((eventId: string) => Promise<EventReport | undefined>) | undefined;
  clock: Clock;
  /** Aborted once shutdown begins: the wait ends (a report being fetched elsewhere still lands). */
  stopping: AbortSignal;
}

/** Past the queue's own deadline (counted from a moment later), a last look for a late answer. */
const GRACE_MS = 5_000;
/** The longest pause between two looks while the store fails to answer (Redis out a while). */
const MAX_POLL_MS = 2_000;

/**
 * A report for a caller that waits for it (not a person's message): asked through the same flow,
 * in `ask.userId`'s turn within the report limit, as a person's. In one process the flow answers
 * here; with replicas whichever replica fetches it leaves the outcome in the store, read here.
 * Rejects with the fetch's own error (the same words as a person would read), or a cancellation
 * once the deadline passes or shutdown begins (none is asked for once shutdown has begun).
 */
export async function awaitReport<W>(
  flow: ReportFlow<W | ReplyTarget>,
  deps: AwaitReportDeps,
  ask: ReportAsk,
  /** Told each place while the report waits (an MCP tool's progress). */
  onProgress?: (status: ReportStatus) => void,
): Promise<EventReport> {
  if (deps.stopping.aborted) throw new CancelledError('eventops was shutting down; no report was asked for');
  const where: ReplyTarget = { kind: 'reply', key: randomUUID() };
  let answered: { report: EventReport } | { error: unknown } | undefined;
  const here: ReportView<ReplyTarget> = {
    where,
    kind: 'result',
    async show(status) {
      if (!isFinal(status)) onProgress?.(status);
      if (!isFinal(status) || answered) return;
      answered = status.state === 'report' ? { report: status.report } : { error: errorOf(status) };
    },
  };
  const giveUpAt = deps.clock.now() + REPORT_DEADLINE_MS + GRACE_MS;
  await flow.follow(ask, { open: async () => here, exclusive: (_key, work) => work() });
  const { store } = deps;
  if (!answered && !store) throw new Error('The report flow ended without an answer');
  if (!answered && store) {
    // The flow stops following once the report is answered, perhaps by another replica: its
    // outcome comes through the store. A read that fails (Redis out a moment) is tried again,
    // less often while it keeps failing.
    let pauseMs = REPLY_POLL_MS;
    try {
      while (!answered) {
        const reply = await store.get<Reply>(replyKey(where.key)).then(
          (value) => {
            pauseMs = REPLY_POLL_MS;
            return value;
          },
          () => {
            pauseMs = Math.min(MAX_POLL_MS, pauseMs * 2);
            return undefined;
          },
        );
        // A fresh ask is answered by its own fetch, never by the cached report it was asked to pass by.
        const report = reply || ask.fresh ? undefined : await deps.cached?.(ask.eventId).catch(() => undefined);
        if (reply) answered = 'report' in reply ? reply : { error: errorFrom(reply.error) };
        else if (report) answered = { report };
        else if (deps.stopping.aborted) throw new CancelledError('eventops was shutting down before the report came');
        else if (deps.clock.now() >= giveUpAt) throw new CancelledError('The report was not fetched in time');
        else await sleep(pauseMs, deps.stopping).catch(() => undefined);
      }
    } finally {
      await store.delete(replyKey(where.key)).catch(() => false);
    }
  }
  if (!answered) throw new CancelledError('The report was not fetched in time');
  if ('error' in answered) throw answered.error;
  return answered.report;
}
