/** A request limit: `limit` requests per `windowMs` (the spec's "180 per minute"). */
export interface RateLimitSpec {
  limit: number;
  windowMs: number;
}

/** Checks a limit at construction, with a message saying what was expected and what was given. */
export function assertRateLimit(spec: RateLimitSpec): void {
  if (!Number.isInteger(spec.limit) || spec.limit < 1) {
    throw new RangeError(`limit must be a positive integer, got ${spec.limit}`);
  }
  if (!(spec.windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${spec.windowMs}`);
}
