import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import { context, header, mrkdwnSection, type SlackMessage } from './block-kit.js';
import { COMMAND_SYNTAX } from './command-syntax.js';
import { describeLimit } from './limit-wording.js';
import { escapeText, joinMrkdwn, type Mrkdwn, md } from './mrkdwn.js';

const EXAMPLE_EVENT = md`evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd`;
const EXAMPLE_PROMO = md`promo_9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d`;

export interface HelpInput {
  /** The report endpoint's limit as configured, so the text never disagrees with it. */
  reportLimit: RateLimitSpec;
  /** The largest quantity a promo change accepts. */
  maxQuantity: number;
}

/** `/events help`: every command with an example. */
export function helpMessage(input: HelpInput): SlackMessage {
  const lines = [
    md`\`/events\` or \`${COMMAND_SYNTAX.list}\`: upcoming events, soonest first, optionally of a day range in your timezone or matching words (only you see them)`,
    md`\`${COMMAND_SYNTAX.show}\`: one event's card, e.g. \`/events show jazz night\` or \`/events show ${EXAMPLE_EVENT}\``,
    md`\`${COMMAND_SYNTAX.find}\`: events whose name matches (any order, accents and small typos forgiven)`,
    md`\`${COMMAND_SYNTAX.report}\`: the event report (the report API allows ${describeLimit(input.reportLimit)}; you see your place in the queue); with nothing after it, a form to pick the event`,
    md`\`${COMMAND_SYNTAX.promo}\`: set how many times a promo code can be redeemed (a whole number from 0 to ${escapeText(input.maxQuantity.toLocaleString('en-US'))}), e.g. \`/events promo ${EXAMPLE_EVENT} ${EXAMPLE_PROMO} 250\`; with nothing after it, a form (promo editors only; asks first)`,
    md`\`${COMMAND_SYNTAX.digestOn}\`: a daily digest in this channel of the events of today (and the next N-1 days) in its timezone, e.g. \`/events digest on 08:30 Europe/Berlin --days 3\` (default 09:00 in your Slack timezone, one day, every day); with \`--me\`, your own digest in your DM with me instead (also on my Home tab)`,
    md`\`${COMMAND_SYNTAX.digestActions}\`: stop it, see its settings and next run, or post today's digest now; \`--me\` for your own`,
    md`\`${COMMAND_SYNTAX.watch}\`: watch an event here (or in your DM with \`--me\`): one card kept up to date, an alert in its thread when a condition is crossed, e.g. \`/events watch jazz night: sold >= 90%, EARLYBIRD left <= 10, +50 sold, no sale for 6h, sold out\`; checks use only report slots nobody is waiting for`,
    md`\`${COMMAND_SYNTAX.unwatch}\` and \`${COMMAND_SYNTAX.watches}\`: stop watching an event; what is watched here, by whom, and when it is checked next`,
    md`\`${COMMAND_SYNTAX.help}\`: this list`,
  ];
  return {
    text: md`eventops commands: /events list, show, report, promo, digest, watch, help`,
    blocks: [
      header(md`eventops: /events commands`),
      mrkdwnSection(joinMrkdwn(lines)),
      context(md`Ids work with or without their prefix (\`evt_\`, \`promo_\`).`),
    ],
  };
}

/** A private message about input that could not be used, with the right form. */
export function usageMessage(problem: Mrkdwn, usage: Mrkdwn): SlackMessage {
  return {
    text: md`${problem} Usage: ${usage}`,
    blocks: [
      mrkdwnSection(md`:warning: ${problem}`),
      context(md`Usage: \`${usage}\` · \`/events help\` lists every command`),
    ],
  };
}
