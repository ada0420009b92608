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

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses `<requests>/<window>` as configurations write it: `180/60s`, `3/1m`, `30/500ms`. */
export function parseRateLimit(text: string): RateLimitSpec | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(text);
  if (!match) return undefined;
  const limit = Number(match[1]);
  const windowMs = Number(match[2]) * (UNIT_MS[match[3] as string] ?? 0);
  if (!Number.isSafeInteger(limit) || limit < 1 || !(windowMs >= 1)) return undefined;
  return { limit, windowMs };
}
