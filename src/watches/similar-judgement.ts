import type { Comparables } from '../forecast/comparables.js';
import { flatlineOdds } from '../forecast/flatline-odds.js';

/**
 * How the two conditions that compare with similar finished events judge a check (issue 45):
 * `behind similar` and `flatline`, once `watch-condition.ts` has found the report's figures.
 */

/** What a comparables condition measured besides its value, for its alert's words. */
export type Measured =
  | {
      kind: 'behind-similar';
      beforeMs: number;
      /** This event's share sold and the similar events' then (0 to 1). */
      share: number;
      low: number;
      median: number;
      high: number;
      count: number;
    }
  | {
      kind: 'flatline';
      /** The span with no sale, and what the similar events sold in the same span (median). */
      spanMs: number;
      expected: number;
      /** The chance of no sale in it at their pace (0 to 1). */
      chance: number;
      count: number;
    };

type SimilarJudgement = { value: number; met: boolean; cleared: boolean; measured?: Measured } | { unknown: string };

/** A flatline alerts when no sale in its span was at most this likely at the similar events' pace. */
export const FLATLINE_CHANCE = 0.01;
/** ...and re-arms once a pause as long is this likely again (a sale starts the span anew). */
const FLATLINE_CLEARS = 0.1;
/** Percentage points a share must climb back above the similar events' lowest before `behind similar` re-arms. */
const SHARE_MARGIN = 2;

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Why a comparison is not judged: too few similar events (and how many it needs), or nothing to compare. */
function notCompared(comparables: Comparables | undefined): SimilarJudgement {
  if (!comparables) return { unknown: 'no sales history to compare with similar events yet' };
  if (comparables.kind === 'too-few')
    return {
      unknown: `${comparables.found} similar finished ${comparables.found === 1 ? 'event reaches' : 'events reach'} back this far; comparing needs ${comparables.needs}`,
    };
  if (comparables.kind === 'none') return { unknown: `nothing to compare: ${comparables.reason}` };
  return { unknown: 'nothing to compare' };
}

/**
 * Its value is this event's share sold (in %); met below the lowest of the similar events at the
 * same time before their start, cleared once clearly back within their range.
 */
export function behindSimilar(compared: Comparables | undefined): SimilarJudgement {
  if (compared?.kind !== 'compared') return notCompared(compared);
  const value = round1(compared.share * 100);
  const low = compared.atThisPoint.low * 100;
  return {
    value,
    met: value < round1(low),
    cleared: value >= low + SHARE_MARGIN,
    measured: {
      kind: 'behind-similar',
      beforeMs: compared.beforeMs,
      share: compared.share,
      ...compared.atThisPoint,
      count: compared.count,
    },
  };
}

/**
 * Its value is the chance (in %) of so long a pause at the similar events' pace; the span counts
 * from the last sale this watch saw (`lastSaleAt`, never one before the watch was set).
 */
export function flatline(reading: {
  comparables?: Comparables | undefined;
  lastSaleAt: number | undefined;
  now: number;
  startsAtMs?: number | undefined;
}): SimilarJudgement {
  const compared = reading.comparables;
  if (compared?.kind !== 'compared') return notCompared(compared);
  // Nothing to judge without a sale seen, or with no seat left to sell.
  if (reading.lastSaleAt === undefined || compared.share >= 1) return { value: 100, met: false, cleared: true };
  const startsAtMs = reading.startsAtMs ?? reading.now + compared.beforeMs;
  const odds = flatlineOdds(compared, { lastSaleAt: reading.lastSaleAt, now: reading.now, startsAtMs });
  if (!odds) return { value: 100, met: false, cleared: true };
  return {
    value: Math.round(odds.chance * 10_000) / 100,
    met: odds.chance <= FLATLINE_CHANCE,
    cleared: odds.chance >= FLATLINE_CLEARS,
    measured: { kind: 'flatline', ...odds },
  };
}
