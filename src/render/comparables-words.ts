import type { Comparables, Spread } from '../forecast/comparables.js';
import type { Measured } from '../watches/similar-judgement.js';
import { escapeText, type Mrkdwn, md } from './mrkdwn.js';
import { plural } from './plural.js';

/**
 * Where an event stands against its similar finished events (issue 45), in words (its chart is
 * `comparablesChartBlocks` in `sales-blocks.ts`):
 * "38% sold with 21 days to go; similar events were at 24-40% (median 31%) then, and ended at
 * 78-100%". Every caller hands these a comparison the figures rule let through.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const percent = (share: number) => Math.round(share * 100);
const pct = (share: number) => md`${percent(share)}%`;

/** "24-40%", or "31%" when the lowest and the highest round alike. */
const rangeWords = (spread: Spread) =>
  percent(spread.low) === percent(spread.high) ? pct(spread.low) : md`${percent(spread.low)}-${pct(spread.high)}`;

/** "21 days to go", "1 day to go", "5 hours to go" (hours under two days). */
export function timeToGo(beforeMs: number): Mrkdwn {
  if (beforeMs < 2 * DAY) return md`${plural(Math.max(1, Math.round(beforeMs / HOUR)), 'hour')} to go`;
  return md`${plural(Math.round(beforeMs / DAY), 'day')} to go`;
}

/** "similar events", "similar events at the same venue on the same weekday". */
function similarWords(alike: readonly ('venue' | 'weekday')[]): Mrkdwn {
  const venue = alike.includes('venue') ? md` at the same venue` : md``;
  const weekday = alike.includes('weekday') ? md` on the same weekday` : md``;
  return md`similar events${venue}${weekday}`;
}

/**
 * The comparison in one sentence; with too few similar events, how many there are and how many it
 * needs. Undefined when there is nothing to compare (no capacity, no history, the event started).
 */
export function comparablesWords(comparables: Comparables): Mrkdwn | undefined {
  if (comparables.kind === 'none') return undefined;
  const here = md`${pct(comparables.share)} sold with ${timeToGo(comparables.beforeMs)}`;
  if (comparables.kind === 'too-few') {
    const found =
      comparables.found === 0
        ? md`no similar finished event reaches back this far`
        : md`only ${plural(comparables.found, 'similar finished event')} ${comparables.found === 1 ? md`reaches` : md`reach`} back this far`;
    return md`${here}; ${found}: comparing with similar events needs ${comparables.needs}.`;
  }
  const { atThisPoint: then, final } = comparables;
  return md`${here}; ${similarWords(comparables.alike)} were at ${rangeWords(then)} (median ${pct(then.median)}) then, and ended at ${rangeWords(final)} (${plural(comparables.count, 'event')}).`;
}

/** A comparables condition's measure in words: the range it fell below, or how unlikely the pause is. */
export function measuredWords(measured: Measured): Mrkdwn {
  if (measured.kind === 'behind-similar')
    return md`${pct(measured.share)} sold with ${timeToGo(measured.beforeMs)}, below similar events' ${rangeWords(measured)} (median ${pct(measured.median)}) then`;
  const hours = measured.spanMs / HOUR;
  const span = hours < 48 ? plural(Math.round(hours * 10) / 10, 'hour') : plural(Math.round(hours / 24), 'day');
  const expected = escapeText(
    new Intl.NumberFormat('en-US', { maximumFractionDigits: measured.expected < 10 ? 1 : 0 }).format(measured.expected),
  );
  return md`no sale for ${span}; similar events sold about ${expected} in the same span before their start, so a pause this long has about ${chanceWords(measured.chance)} chance at their pace (Poisson): a checkout problem is more likely than a quiet day`;
}

/** "a 0.3%", "a 1 in 20,000", "a less than 1 in a million". */
export function chanceWords(chance: number): Mrkdwn {
  if (chance >= 0.001) {
    const shown = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 }).format(chance * 100);
    return md`a ${escapeText(shown)}%`;
  }
  if (chance < 1e-6) return md`a less than 1 in a million`;
  const oneIn = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 }).format(1 / chance);
  return md`a 1 in ${escapeText(oneIn)}`;
}
