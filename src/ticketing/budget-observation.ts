import type { Logger } from '../logger.js';
import type { RateLimitObservation } from './rate-limit-headers.js';

/** What a budget takes from one response's headers, after the two corrections every budget makes. */
export interface BudgetReading {
  observation: RateLimitObservation;
  /** The limit this budget works to: the server's, capped by configuration. */
  limit: number;
  /** The server's remaining count less the headroom a lower configured limit leaves to others. */
  remaining: number;
  /** Whether the reset was absurd (longer than a window) and capped at one window. */
  capped: boolean;
}

/**
 * Reads an observation the way every budget (in process or shared) must:
 * - a reset further away than one window (with 10% for rounding and latency) is a server mistake,
 *   typically seconds since the epoch sent where milliseconds are due, and is capped at one window;
 * - the server's limit is the truth, and a lower configured limit keeps this bot to its share.
 */
export function readBudgetObservation(
  raw: RateLimitObservation,
  config: { configuredLimit: number; windowMs: number },
): BudgetReading {
  const resetInMs = raw.resetAt - raw.observedAt;
  const capped = resetInMs > config.windowMs * 1.1;
  const observation = capped ? { ...raw, resetAt: raw.observedAt + config.windowMs } : raw;
  const headroom = Math.max(0, observation.limit - config.configuredLimit);
  return {
    observation,
    limit: Math.min(observation.limit, config.configuredLimit),
    remaining: Math.max(0, observation.remaining - headroom),
    capped,
  };
}

/** Says once per budget that the server sent an absurd reset (and that it was capped). */
export function absurdResetWarning(logger: Logger, windowMs: number): (raw: RateLimitObservation) => void {
  let warned = false;
  return (raw) => {
    if (warned) return;
    warned = true;
    logger.warn('X-RateLimit-Reset is longer than one window; capped at one window', {
      resetInMs: raw.resetAt - raw.observedAt,
      windowMs,
    });
  };
}
