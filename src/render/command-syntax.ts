import { type Mrkdwn, md } from './mrkdwn.js';

const DIGEST_ON = md`/events digest on [HH:MM] [zone] [--days N] [--skip-empty] [--match words] [--weekdays mon-fri] [--me]`;
const DIGEST_ACTIONS = md`off | status | now`;
const DIGEST_SALES = md`/events digest on --sales [daily | weekly] [HH:MM] [zone] [--weekdays day] [--me]`;

/** What a watch can be told to look for: the help's example and the usage quoted under a problem. */
export const WATCH_CONDITIONS_EXAMPLE = md`sold >= 90%, EARLYBIRD left <= 10, +50 sold, no sale for 6h, sold out`;

/**
 * The one table of `/events` syntax: `/events help` is generated from it (a line for each entry)
 * and the parser quotes it under a problem, so the two cannot drift apart.
 */
export const COMMAND_SYNTAX = {
  list: md`/events list [today | tomorrow | week] [words]`,
  show: md`/events show <id or name>`,
  find: md`/events find <words>`,
  report: md`/events report [id or name]`,
  promo: md`/events promo [<id or name> <code or promoId> <quantity>]`,
  digestOn: DIGEST_ON,
  digestActions: md`/events digest ${DIGEST_ACTIONS} [--me] [--sales]`,
  digestSales: DIGEST_SALES,
  watch: md`/events watch [<id or name>[: conditions]] [--except words] [--me]`,
  unwatch: md`/events unwatch <id or name> [--me]`,
  watches: md`/events watches [--me] | thread-only [on | off]`,
  forecast: md`/events forecast accuracy`,
  mcp: md`/events mcp token | revoke`,
  help: md`/events help`,
} as const satisfies Record<string, Mrkdwn>;

/** The form quoted under a problem with each subcommand: `digest` in one line with all its actions. */
export const USAGE = {
  list: COMMAND_SYNTAX.list,
  show: COMMAND_SYNTAX.show,
  report: COMMAND_SYNTAX.report,
  find: COMMAND_SYNTAX.find,
  promo: COMMAND_SYNTAX.promo,
  digest: md`${DIGEST_ON} | ${DIGEST_ACTIONS} [--me] [--sales]; ${DIGEST_SALES}`,
  watch: md`${COMMAND_SYNTAX.watch} (conditions such as: ${WATCH_CONDITIONS_EXAMPLE}, checkIns >= 100; and, judged from when the event's sales history allows: sells out before start, pace < 20/day, pace halves; against similar finished events: behind similar, flatline)`,
  unwatch: COMMAND_SYNTAX.unwatch,
  watches: COMMAND_SYNTAX.watches,
  forecast: COMMAND_SYNTAX.forecast,
  mcp: COMMAND_SYNTAX.mcp,
  help: COMMAND_SYNTAX.help,
} as const satisfies Record<string, Mrkdwn>;
