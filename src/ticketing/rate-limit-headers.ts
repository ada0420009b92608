/** What one response's `X-RateLimit-*` headers say (spec 8 rule 2), pinned to when it arrived. */
export interface RateLimitObservation {
  limit: number;
  remaining: number;
  /** Absolute time (clock ms) at which the window resets: arrival + `X-RateLimit-Reset` ms. */
  resetAt: number;
  observedAt: number;
}

export type HeaderBag = Record<string, string | string[] | undefined>;

export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function nonNegativeNumber(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Reads the three headers; a response missing or garbling any of them yields `undefined`. */
export function readRateLimitHeaders(headers: HeaderBag, observedAt: number): RateLimitObservation | undefined {
  const limit = nonNegativeNumber(headerValue(headers, 'x-ratelimit-limit'));
  const remaining = nonNegativeNumber(headerValue(headers, 'x-ratelimit-remaining'));
  const resetMs = nonNegativeNumber(headerValue(headers, 'x-ratelimit-reset'));
  if (limit === undefined || remaining === undefined || resetMs === undefined) return undefined;
  return { limit: Math.floor(limit), remaining: Math.floor(remaining), resetAt: observedAt + resetMs, observedAt };
}
