import { describe, expect, it } from 'vitest';
import { admissionWaits } from '../../../src/reports/queue/report-queue-view.js';

const rule = { now: 10_000, limit: 2, windowMs: 1_000, blockedUntil: 0 };

describe('admissionWaits (the shared queue\u2019s estimate of each place\u2019s wait)', () => {
  it('starts the limit at once, then one window after each start', () => {
    expect(admissionWaits(5, { ...rule, frees: [] })).toEqual([0, 0, 1_000, 1_000, 2_000]);
  });

  it('waits for taken slots: a finished call\u2019s when it frees, one in flight no sooner than a window from now', () => {
    // One slot frees in 300 ms; the other is held by a call still running (its lease ends later).
    expect(admissionWaits(4, { ...rule, frees: [10_300, 40_000] })).toEqual([300, 1_000, 1_300, 2_000]);
  });

  it('follows a 429\u2019s wait and the report headers until their reset', () => {
    expect(admissionWaits(2, { ...rule, frees: [], blockedUntil: 10_500 })).toEqual([500, 500]);
    expect(admissionWaits(3, { ...rule, frees: [], server: { resetAt: 10_700, left: 1 } })).toEqual([0, 700, 1_000]);
  });
});
