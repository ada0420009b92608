import { describe, expect, it } from 'vitest';
import { type ReportSource, reportAtHand } from '../../src/reports/report-at-hand.js';

const NOW = 1_000_000;
const MINUTE = 60_000;
const read = (sold: number, readAt: number) => ({ report: { ticketsSold: sold }, readAt });
/** A source holding one report; asked for one read after `readAfterMs`, as the caches are. */
const holding =
  (held: ReturnType<typeof read> | undefined, asked: number[] = []): ReportSource =>
  (_id, readAfterMs) => {
    asked.push(readAfterMs);
    return held && held.readAt > readAfterMs ? held : undefined;
  };

describe('reportAtHand', () => {
  it('takes the freshest of the sources, whichever comes first', async () => {
    const staleCheck = holding(read(300, NOW - 50_000));
    const freshCache = holding(read(340, NOW - 5_000));
    const found = await reportAtHand([staleCheck, freshCache], 'evt_1', { now: NOW, maxAgeMs: MINUTE });
    expect(found).toEqual(read(340, NOW - 5_000));
    expect(await reportAtHand([freshCache, staleCheck], 'evt_1', { now: NOW, maxAgeMs: MINUTE })).toEqual(
      read(340, NOW - 5_000),
    );
  });

  it('has none older than the age the caller accepts (a report window by default at the callers)', async () => {
    const hourOld = holding(read(300, NOW - 60 * MINUTE));
    expect(await reportAtHand([hourOld], 'evt_1', { now: NOW, maxAgeMs: MINUTE })).toBeUndefined();
    expect(await reportAtHand([hourOld], 'evt_1', { now: NOW, maxAgeMs: 24 * 60 * MINUTE })).toEqual(
      read(300, NOW - 60 * MINUTE),
    );
  });

  it('asks each later source only for a report fresher than the best so far', async () => {
    const asked: number[] = [];
    await reportAtHand([holding(read(300, NOW - 10_000)), holding(undefined, asked)], 'evt_1', {
      now: NOW,
      maxAgeMs: MINUTE,
    });
    expect(asked).toEqual([NOW - 10_000]);
  });

  it('passes over a source that fails or throws', async () => {
    const failing: ReportSource = async () => {
      throw new Error('store down');
    };
    const throwing: ReportSource = () => {
      throw new Error('not ready');
    };
    const found = await reportAtHand([failing, throwing, holding(read(1, NOW))], 'evt_1', {
      now: NOW,
      maxAgeMs: MINUTE,
    });
    expect(found).toEqual(read(1, NOW));
  });
});
