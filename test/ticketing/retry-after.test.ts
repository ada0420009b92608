import { describe, expect, it } from 'vitest';
import { parseRetryAfter, rateLimitWaitMs } from '../../src/ticketing/retry-after.js';

const now = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('Retry-After', () => {
  it('reads delta-seconds, fractions and HTTP-dates', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0.25', now)).toBe(250);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  const noJitter = { windowMs: 60_000, now, random: () => 0 };

  it('waits as Retry-After says when it is plausible', () => {
    expect(rateLimitWaitMs({ 'retry-after': '12' }, noJitter)).toBe(12_000);
  });

  it('falls back to X-RateLimit-Reset when Retry-After is missing or absurd', () => {
    expect(
      rateLimitWaitMs(
        { 'x-ratelimit-limit': '180', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '4000' },
        noJitter,
      ),
    ).toBe(4000);
    const absurd = {
      'retry-after': '30000',
      'x-ratelimit-limit': '180',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '30000',
    };
    expect(rateLimitWaitMs(absurd, noJitter)).toBe(30_000);
  });

  it('never waits more than one window plus jitter', () => {
    expect(rateLimitWaitMs({ 'retry-after': '86400' }, noJitter)).toBe(60_000);
    expect(rateLimitWaitMs({}, { ...noJitter, random: () => 0.999 })).toBeLessThanOrEqual(60_250);
  });
});
