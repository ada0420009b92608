import { escapeText, type Mrkdwn, md } from './mrkdwn.js';

const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** `~5 min`, `~2 h`: how often a watched event is checked. */
export function everyWords(intervalMs: number): Mrkdwn {
  const minutes = Math.max(1, Math.round(intervalMs / 60_000));
  return minutes >= 120 ? md`~${escapeText(oneDecimal.format(minutes / 60))} h` : md`~${minutes} min`;
}
