import { escapeText, type Mrkdwn, md } from './mrkdwn.js';

const counted = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** `1 report`, `3 reports`, `1 redemption`: a count and its noun (`many` when not `one` + "s"). */
export function plural(count: number, one: string, many = `${one}s`): Mrkdwn {
  return md`${escapeText(counted.format(count))} ${escapeText(count === 1 ? one : many)}`;
}
