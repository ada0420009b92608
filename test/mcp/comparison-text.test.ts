import { describe, expect, it } from 'vitest';
import type { Comparables } from '../../src/forecast/comparables.js';
import type { SalesInsight } from '../../src/forecast/sales-insights.js';
import { comparisonFacts, comparisonText } from '../../src/mcp/tool-texts.js';
import { shown } from '../helpers/shown.js';

/** Issue 45 in the MCP `sales_forecast` answer: the comparison's words and structured content. */

const DAY = 86_400_000;
const insight = (comparables: Comparables) =>
  shown({ comparables } as Pick<SalesInsight, 'comparables'> as SalesInsight);

describe('the comparison with similar events, as an MCP tool says it', () => {
  it('says the share now, the similar events’ range and median then, and what they ended at', () => {
    const compared = insight({
      kind: 'compared',
      beforeMs: 21 * DAY,
      share: 0.38,
      capacity: 200,
      count: 5,
      atThisPoint: { low: 0.24, median: 0.31, high: 0.4 },
      final: { low: 0.78, median: 0.9, high: 1 },
      alike: ['venue'],
      members: [],
    });
    expect(comparisonText(compared)).toBe(
      '38% sold with 21 days to go; similar events at the same venue were at 24-40% (median 31%) then, and ended at 78-100% (5 events).',
    );
    expect(comparisonFacts(compared)).toEqual({
      kind: 'compared',
      share: 0.38,
      daysToGo: 21,
      events: 5,
      atThisPoint: { low: 0.24, median: 0.31, high: 0.4 },
      final: { low: 0.78, median: 0.9, high: 1 },
      alike: ['venue'],
    });
  });

  it('with too few similar events, says how many there are and how many it needs', () => {
    const few = insight({ kind: 'too-few', found: 1, needs: 3, beforeMs: 30 * 3_600_000, share: 0.5 });
    expect(comparisonText(few)).toBe(
      '50% sold with 30 hours to go; only 1 similar finished event reaches back this far: comparing with similar events needs 3.',
    );
    expect(comparisonFacts(few)).toEqual({ kind: 'too-few', share: 0.5, daysToGo: 1.3, found: 1, needs: 3 });
    const none = insight({ kind: 'too-few', found: 0, needs: 3, beforeMs: 10 * DAY, share: 0.1 });
    expect(comparisonText(none)).toContain('no similar finished event reaches back this far');
  });

  it('says why there is nothing to compare', () => {
    const started = insight({ kind: 'none', reason: 'the event has started' });
    expect(comparisonText(started)).toBe('No comparison with similar events: the event has started.');
    expect(comparisonFacts(started)).toEqual({ kind: 'none', reason: 'the event has started' });
  });
});
