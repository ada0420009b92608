import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import { context, header, mrkdwnSection, type SlackMessage, warning } from './block-kit.js';
import { COMMAND_SYNTAX, WATCH_CONDITIONS_EXAMPLE } from './command-syntax.js';
import { describeLimit } from './limit-wording.js';
import { escapeText, joinMrkdwn, type Mrkdwn, md } from './mrkdwn.js';

const EXAMPLE_EVENT = md`evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd`;

export interface HelpInput {
  /** The report endpoint's limit as configured, so the text never disagrees with it. */
  reportLimit: RateLimitSpec;
  /** The largest quantity a promo change accepts. */
  maxQuantity: number;
}

type Command = keyof typeof COMMAND_SYNTAX;

/** What each command does, with an example: a line of help for every entry of the syntax table. */
const EXPLAINED: Record<Command, (input: HelpInput) => Mrkdwn> = {
  list: () =>
    md`upcoming events, soonest first, optionally of a day range in your timezone or matching words (only you see them); \`/events\` alone does the same`,
  show: () => md`one event's card, e.g. \`/events show jazz night\` or \`/events show ${EXAMPLE_EVENT}\``,
  find: () => md`events whose name matches (any order, accents and small typos forgiven)`,
  report: (input) =>
    md`the event report (the report API allows ${describeLimit(input.reportLimit)}; you see your place in the queue); with nothing after it, a form to pick the event`,
  promo: (input) =>
    md`set how many times a promo code can be redeemed (a whole number from 0 to ${escapeText(input.maxQuantity.toLocaleString('en-US'))}), e.g. \`/events promo summer tech meetup EARLYBIRD 250\` (the event by name or id, the code people know or its id); with nothing after it, a form (promo editors only; asks first)`,
  digestOn: () =>
    md`a daily digest in this channel of the events of today (and the next N-1 days) in its timezone, e.g. \`/events digest on 08:30 Europe/Berlin --days 3\` (default 09:00 in your Slack timezone, one day, every day); with \`--me\`, your own digest in your DM with me instead (also on my Home tab)`,
  digestActions: () =>
    md`stop it, see its settings and next run, or post today's digest now; \`--me\` for your own, \`--sales\` for the sales digest`,
  digestSales: () =>
    md`a sales digest of the events watched here (\`--me\`: your own watches, in your DM): each one's sales since the last digest, its pace and forecast, the forecasts that moved most and a chart, from the figures already read (no report is fetched); daily, or weekly on Mondays (\`--weekdays fri\` for another day), e.g. \`/events digest on --sales weekly 08:00 Europe/Berlin\``,
  watch: () =>
    md`watch an event here (or in your DM with \`--me\`): one card kept up to date, an alert in its thread when a condition is crossed, e.g. \`/events watch jazz night: ${WATCH_CONDITIONS_EXAMPLE}\`; checks use only report slots nobody is waiting for; \`--except pace STAFF\` leaves out a kind of condition or the promo codes and figures named so`,
  unwatch: () => md`stop watching an event here (or yours, with \`--me\`)`,
  watches: () =>
    md`what is watched here, by whom, and when it is checked next; \`thread-only on\` keeps this channel's alerts in the cards' threads (a sell-out and an event's end still show in the channel)`,
  forecast: () =>
    md`how far to trust the sales forecasts: how far off they were at 25%, 50% and 75% of the sale of this organization's last finished events, and how often their range held (only you see it)`,
  mcp: () =>
    md`your own token for AI agents (Slackbot's MCP client, Claude, Cursor) to reach eventops' tools as you, shown once and only to you; \`revoke\` ends it at once`,
  help: () => md`this list`,
};

const COMMANDS = Object.keys(COMMAND_SYNTAX) as Command[];
/** The subcommands by name, once each (`digest` has two lines of help). */
const NAMES = [...new Set(COMMANDS.map((command) => COMMAND_SYNTAX[command].split(' ')[1]))];

/** `/events help`: every command of the syntax table with what it does. */
export function helpMessage(input: HelpInput): SlackMessage {
  const lines = COMMANDS.map((command) => md`\`${COMMAND_SYNTAX[command]}\`: ${EXPLAINED[command](input)}`);
  return {
    text: md`eventops commands: /events ${escapeText(NAMES.join(', '))}`,
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
    blocks: [mrkdwnSection(warning(problem)), context(md`Usage: \`${usage}\` · \`/events help\` lists every command`)],
  };
}
