import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import { escapeText, type Mrkdwn, md } from './mrkdwn.js';

const UNITS: [ms: number, one: string][] = [
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/** `3 requests a minute`, `180 requests every 2 minutes`, `30 requests every 500 ms`: the configured figure, never a copy. */
export function describeLimit(spec: RateLimitSpec): Mrkdwn {
  const requests = spec.limit === 1 ? md`1 request` : md`${spec.limit} requests`;
  for (const [ms, unit] of UNITS) {
    if (spec.windowMs === ms) return md`${requests} a ${escapeText(unit)}`;
    if (spec.windowMs % ms === 0) return md`${requests} every ${spec.windowMs / ms} ${escapeText(`${unit}s`)}`;
  }
  return md`${requests} every ${spec.windowMs} ms`;
}
