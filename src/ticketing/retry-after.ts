import { type HeaderBag, headerValue, readRateLimitHeaders } from './rate-limit-headers.js';

/**
 * `Retry-After` as milliseconds: delta-seconds (fractions allowed, as some servers send them) or
 * an HTTP-date (RFC 9110 10.2.3). The spec leaves the unit open (spec 8 rule 5).
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RateLimitWaitOptions {
  /** The limit's window: no wait is ever longer than this. */
  windowMs: number;
  now: number;
  /** A random number in [0, 1), for jitter. */
  random: () => number;
  /** Most jitter added, so that several clients do not return at the same instant. @default 250 */
  maxJitterMs?: number;
}

/**
 * How long to wait after a 429. `Retry-After` is what the server asked for; `X-RateLimit-Reset`
 * is when the window turns. An HTTP-date compared with a skewed clock or a value in the wrong unit
 * can say something absurd, so the answer is cross-checked with the reset and never exceeds one
 * window; a small jitter is added on top.
 */
export function rateLimitWaitMs(headers: HeaderBag, options: RateLimitWaitOptions): number {
  const retryAfter = parseRetryAfter(headerValue(headers, 'retry-after'), options.now);
  const reset = readRateLimitHeaders(headers, options.now);
  const resetIn = reset ? reset.resetAt - options.now : undefined;
  let wait: number;
  if (retryAfter !== undefined && retryAfter <= options.windowMs) wait = retryAfter;
  else if (resetIn !== undefined && resetIn <= options.windowMs) wait = resetIn;
  else wait = options.windowMs;
  const jitter = Math.min(options.maxJitterMs ?? 250, options.windowMs * 0.05) * options.random();
  return Math.round(wait + jitter);
}
