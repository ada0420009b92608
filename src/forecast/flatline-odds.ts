import { type Comparables, shareBefore } from './comparables.js';

/** What the similar events sold in a span with no sale here, and how likely no sale in it would be at their pace. */
export interface FlatlineOdds {
  /** The span with no sale. */
  spanMs: number;
  /** Tickets the similar events sold in the same span before their start (their median, scaled to this capacity). */
  expected: number;
  /** The chance of no sale at all in the span at that pace (Poisson): e^-expected. */
  chance: number;
  /** How many similar events reach back to the span's beginning. */
  count: number;
}

/**
 * The odds of a span with no sale (`lastSaleAt` to `now`), given what the similar finished events
 * sold in the same span before their start: a count of sales over a span is read as Poisson, so
 * no sale at all has the chance e^-expected. Undefined without a comparison, or with fewer than
 * 2 similar events whose history reaches back to the span's beginning. Pure.
 */
export function flatlineOdds(
  compared: Comparables,
  span: { lastSaleAt: number; now: number; startsAtMs: number },
): FlatlineOdds | undefined {
  const { lastSaleAt, now, startsAtMs } = span;
  if (compared.kind !== 'compared' || now <= lastSaleAt || now >= startsAtMs) return undefined;
  const sold: number[] = [];
  for (const member of compared.members) {
    const before = shareBefore(member, startsAtMs - lastSaleAt);
    const after = shareBefore(member, startsAtMs - now);
    if (before === undefined || after === undefined) continue;
    sold.push(Math.max(0, after - before) * compared.capacity);
  }
  if (sold.length < 2) return undefined;
  sold.sort((a, b) => a - b);
  const half = (sold.length - 1) / 2;
  const expected = ((sold[Math.floor(half)] as number) + (sold[Math.ceil(half)] as number)) / 2;
  return { spanMs: now - lastSaleAt, expected, chance: Math.exp(-expected), count: sold.length };
}
