import { describe, expect, it } from 'vitest';
import { salesChartBlocks } from '../../src/render/sales-blocks.js';
import { pageModule } from './page-module.js';

const { chartWords } = await pageModule<{ chartWords(block: unknown): string }>('charts.js');

describe("the sandbox chart's words (its aria-label)", () => {
  it('read as a sentence: what is counted, by what', () => {
    const at = Date.parse('2026-11-28T09:00:00Z');
    const [chart] = salesChartBlocks({
      eventName: 'Jazz Night',
      points: [0, 1, 2].map((i) => ({ at: at + i * 86_400_000, sold: 10 * i })),
      capacity: 100,
      startsAtMs: at + 9 * 86_400_000,
      forecast: undefined,
      zone: 'UTC',
    });
    const words = chartWords(chart);
    expect(words).toContain('Tickets sold by time read');
    expect(words).not.toContain('Read at by');
  });
});
