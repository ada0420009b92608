import { NamedError } from '../named-error.js';
/**
 * One error model for everything the Event Ticketing client can fail with. Each kind has a
 * stable `code` (what callers branch on) and keeps the underlying `cause`. Messages never carry
 * the API key: it travels in a header the client never copies into an error.
 */
export type TicketingErrorCode =
  | 'invalid_input'
  | 'invalid_request'
  | 'unauthorized'
  | 'not_found'
  | 'rate_limited'
  | 'unavailable'
  | 'schema'
  | 'pagination'
  | 'cancelled'
  | 'outcome_unknown'
  | 'too_many_waiting';

export interface TicketingErrorOptions {
  cause?: unknown;
  /** HTTP status of the response that caused the error, when there was one. */
  status?: number;
}

export abstract class TicketingError extends NamedError {
  abstract readonly code: TicketingErrorCode;
  readonly status: number | undefined;

  constructor(message: string, options: TicketingErrorOptions = {}) {
    super(message, options);
    this.status = options.status;
  }
}

/** Input rejected before any request was sent (a malformed id, a bad quantity). */
export class ValidationError extends TicketingError {
  readonly code = 'invalid_input';
}

/** The service refused the request as malformed (400, 405, 409, 422 ...). */
export class InvalidRequestError extends TicketingError {
  readonly code = 'invalid_request';
}

/** The API key was missing, unknown or not allowed (401, 403). */
export class UnauthorizedError extends TicketingError {
  readonly code = 'unauthorized';
}

export class NotFoundError extends TicketingError {
  readonly code = 'not_found';
}

/** A limit was exceeded and waiting was not possible (the caller's deadline came first). */
export class RateLimitedError extends TicketingError {
  readonly code = 'rate_limited';
  /** How long until the limit allows another request, in milliseconds. */
  readonly retryAfterMs: number;
  /** Which limit: the organization's budget or an endpoint's own limit. */
  readonly scope: 'organization' | 'report';

  constructor(
    message: string,
    details: { retryAfterMs: number; scope: 'organization' | 'report' },
    options?: TicketingErrorOptions,
  ) {
    super(message, options);
    this.retryAfterMs = details.retryAfterMs;
    this.scope = details.scope;
  }
}

/** The service could not be reached or kept failing (network error, timeout, 5xx, broken body). */
export class UnavailableError extends TicketingError {
  readonly code = 'unavailable';
}

/** A response did not have the shape the spec promises. */
export class SchemaError extends TicketingError {
  readonly code = 'schema';
}

/** Pagination went wrong: a repeated cursor, `hasMore` without a cursor, or a runaway crawl. */
export class PaginationError extends TicketingError {
  readonly code = 'pagination';
}

/** The caller gave up (its AbortSignal fired) before the work finished. */
export class CancelledError extends TicketingError {
  readonly code = 'cancelled';
}

/**
 * A write was sent but no answer ever came (a timeout, a dropped connection, the deadline): the
 * service may or may not have applied it. Never report this as "not changed".
 */
export class OutcomeUnknownError extends TicketingError {
  readonly code = 'outcome_unknown';
}

/** A report that waits for its turn: its event, and how the request named it. */
export interface WaitingReport {
  eventId: string;
  label?: string | undefined;
}

/**
 * Refused before it was queued (no call made): its requester already has `limit` reports waiting
 * (`person`), or every workflow step together has (`step`). The reports that wait are listed.
 */
export class TooManyReportsWaitingError extends TicketingError {
  readonly code = 'too_many_waiting';
  readonly limit: number;
  readonly requesterKind: 'person' | 'step';
  readonly waiting: readonly WaitingReport[];

  constructor(details: { limit: number; requesterKind: 'person' | 'step'; waiting: readonly WaitingReport[] }) {
    super(
      details.requesterKind === 'step'
        ? `${details.limit} report steps are waiting already (at most ${details.limit} for every workflow together)`
        : `${details.limit} reports of this person are waiting already (at most ${details.limit})`,
    );
    this.limit = details.limit;
    this.requesterKind = details.requesterKind;
    this.waiting = details.waiting;
  }

  /** The events whose reports wait. */
  get eventIds(): string[] {
    return this.waiting.map((report) => report.eventId);
  }
}

export function isTicketingError(value: unknown): value is TicketingError {
  return value instanceof TicketingError;
}

/** The error a cancelled wait should reject with: the signal's own reason when it is one of ours. */
export function cancellationError(signal: AbortSignal): TicketingError {
  const reason: unknown = signal.reason;
  if (isTicketingError(reason)) return reason;
  return new CancelledError('The request was cancelled before it finished', { cause: reason });
}
