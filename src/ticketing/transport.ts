import { Agent, type Dispatcher, request } from 'undici';
import { errorCodes } from '../error-chain.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { cancellationError, UnavailableError } from './errors.js';
import type { HeaderBag } from './rate-limit-headers.js';

export interface TransportTimeouts {
  /** TCP/TLS connect. @default 5000 */
  connectMs?: number;
  /** From request sent to response headers. @default 10000 */
  headersMs?: number;
  /** Longest silence while reading the body. @default 10000 */
  bodyMs?: number;
  /** Whole attempt, headers and body together. @default 20000 */
  deadlineMs?: number;
}

/** The longest one attempt may take: its deadline. */
export const attemptDeadlineMs = (timeouts?: TransportTimeouts): number => timeouts?.deadlineMs ?? 20_000;

export interface TransportOptions {
  /** The service's base address; paths such as `/v1/events` are resolved against it. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to a keep-alive `Agent` owned (and closed) by the transport. */
  dispatcher?: Dispatcher;
  timeouts?: TransportTimeouts;
  clock?: Clock;
}

export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Path below the base address, already encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
}

export interface ApiResponse {
  status: number;
  headers: HeaderBag;
  /** Parsed JSON, or `undefined` for an empty body. */
  body: unknown;
  receivedAt: number;
}

/** A failure with no usable response: `retryable` says whether sending again may help. */
export class TransportError extends UnavailableError {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown; neverSent?: boolean },
    /** Headers of the response whose body could not be read, when one arrived. */
    readonly headers?: HeaderBag,
    readonly receivedAt?: number,
  ) {
    super(message, options);
    this.neverSent = options?.neverSent ?? false;
  }

  /** The connection was never made, so the service cannot have seen the request. */
  readonly neverSent: boolean;
}

/** Errors that happen before a single byte of the request can reach the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH']);

function neverSent(error: unknown): boolean {
  for (const code of errorCodes(error)) if (NOT_SENT_CODES.has(code)) return true;
  return false;
}

export interface Transport {
  send(request: ApiRequest): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** Sends JSON requests to the service with the key header, timeouts and a keep-alive pool. */
export function createTransport(options: TransportOptions): Transport {
  const base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const timeouts = {
    connectMs: options.timeouts?.connectMs ?? 5_000,
    headersMs: options.timeouts?.headersMs ?? 10_000,
    bodyMs: options.timeouts?.bodyMs ?? 10_000,
    deadlineMs: attemptDeadlineMs(options.timeouts),
  };
  const ownDispatcher = options.dispatcher
    ? undefined
    : new Agent({
        connect: { timeout: timeouts.connectMs },
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
        keepAliveTimeout: 10_000,
        connections: 32,
      });
  const dispatcher = options.dispatcher ?? (ownDispatcher as Dispatcher);
  const clock = options.clock ?? systemClock;

  function urlFor(req: ApiRequest): URL {
    const url = new URL(req.path.replace(/^\//, ''), base);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  async function send(req: ApiRequest): Promise<ApiResponse> {
    const deadline = AbortSignal.timeout(timeouts.deadlineMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    const url = urlFor(req);
    const where = `${req.method} ${url.pathname}`;
    let text: string;
    let status: number;
    let headers: HeaderBag;
    try {
      const response = await request(url, {
        method: req.method,
        dispatcher,
        signal,
        headers: {
          accept: 'application/json',
          'service-api-key': options.apiKey,
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: req.body === undefined ? null : JSON.stringify(req.body),
      });
      status = response.statusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (error) {
      if (req.signal?.aborted) throw cancellationError(req.signal);
      if (deadline.aborted) {
        throw new TransportError(`${where} got no complete answer within ${timeouts.deadlineMs} ms`, true, {
          cause: error,
        });
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new TransportError(`${where} failed: ${reason}`, true, { cause: error, neverSent: neverSent(error) });
    }
    const receivedAt = clock.now();
    if (text.trim() === '') return { status, headers, body: undefined, receivedAt };
    try {
      return { status, headers, body: JSON.parse(text), receivedAt };
    } catch (error) {
      // An error status needs no body to be understood; a success does.
      if (status >= 300) return { status, headers, body: undefined, receivedAt };
      // A cut-off body: the request may have been processed, but its answer cannot be read.
      throw new TransportError(
        `${where} answered ${status} with a body that is not valid JSON`,
        true,
        { cause: error },
        headers,
        receivedAt,
      );
    }
  }

  return {
    send,
    close: async () => {
      await ownDispatcher?.close();
    },
  };
}
