import type { Clock } from '../time/clock.js';
import { FixedWindow, type WindowState } from './fixed-window.js';
import { SlidingWindow } from './sliding-window.js';

export type RetryAfterFormat = 'seconds' | 'fractional' | 'http-date';

/** One organization's budgets: all its keys share them (spec 5 rule 2, spec 8). */
export interface Org {
  id: string;
  window: FixedWindow | SlidingWindow;
  reportWindow: FixedWindow;
}

export interface LimitOptions {
  orgLimit: { limit: number; windowMs: number };
  reportLimit: { limit: number; windowMs: number };
  windowKind: 'fixed' | 'sliding';
  origin: number;
}

export function createOrg(id: string, options: LimitOptions): Org {
  const { orgLimit, reportLimit, origin } = options;
  return {
    id,
    window:
      options.windowKind === 'sliding'
        ? new SlidingWindow(orgLimit.limit, orgLimit.windowMs, origin)
        : new FixedWindow(orgLimit.limit, orgLimit.windowMs, origin),
    reportWindow: new FixedWindow(reportLimit.limit, reportLimit.windowMs, origin),
  };
}

/** How the limit headers are written: the knobs that can be turned while the simulator runs. */
export interface HeaderFormat {
  retryAfterFormat: RetryAfterFormat;
  resetFormat: 'ms' | 'epoch-seconds';
}

/** `Retry-After` for a wait of `resetMs`, in the configured form (the spec leaves the unit open). */
export function retryAfterValue(resetMs: number, format: HeaderFormat, clock: Clock): string {
  switch (format.retryAfterFormat) {
    case 'fractional':
      return (resetMs / 1000).toFixed(3);
    case 'http-date':
      // HTTP-dates have whole seconds: round up so the client never comes back early.
      return new Date(Math.ceil((clock.now() + resetMs) / 1000) * 1000).toUTCString();
    default:
      return String(Math.max(1, Math.ceil(resetMs / 1000)));
  }
}

/** The three headers every response carries (spec 8 rule 2). */
export function rateLimitHeaders(state: WindowState, format: HeaderFormat, clock: Clock): Record<string, string> {
  const resetMs = Math.max(0, Math.round(state.resetMs));
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset':
      format.resetFormat === 'epoch-seconds' ? String(Math.ceil((clock.now() + resetMs) / 1000)) : String(resetMs),
  };
}
