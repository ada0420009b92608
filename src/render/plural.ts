import { escapeText, type Mrkdwn } from './mrkdwn.js';

const counted = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** `1 variable`, `3 variables`, as plain text: for the logs and the CLI, which Slack never reads. */
export function countedWords(count: number, one: string, many = `${one}s`): string {
  return `${counted.format(count)} ${count === 1 ? one : many}`;
}

/** `1 report`, `3 reports`, `1 redemption`: a count and its noun (`many` when not `one` + "s"). */
export function plural(count: number, one: string, many = `${one}s`): Mrkdwn {
  return escapeText(countedWords(count, one, many));
}
