import type { Shown, Withheld } from '../figures/may-show-figures.js';
import { quantityRows, topFigures } from '../reports/report-figures.js';
import type { EventReport, TicketingEvent } from '../ticketing/schemas.js';
import { eventTitle } from './event-blocks.js';
import { describeEventTime } from './event-time.js';
import { clip, code, escapeText, joinMrkdwn, type Mrkdwn, md } from './mrkdwn.js';
import { formatNumber, humanise } from './report-blocks.js';
import { withheldWords } from './withheld-words.js';

/**
 * What workflow steps say, as text outputs a workflow posts where its author puts them: Slack
 * mrkdwn, with the service's text escaped.
 */

/** Most events the text lists; the count output still counts them all. */
const MAX_LISTED = 25;

/** When the event list was read, in UTC: a workflow has no reader to give a zone to. */
export const asOfUtc = (asOf: number) =>
  Number.isFinite(asOf) ? md`${clip(new Date(asOf).toISOString().slice(11, 16), 5)} UTC` : md`an unknown time`;

/** One event as a line: its name, when in its own zone, where, and its id. */
const eventLine = (event: TicketingEvent): Mrkdwn => {
  const venue = event.venue ? md` · ${clip(event.venue, 100)}` : md``;
  return md`• *${eventTitle(event, 150)}* · ${clip(describeEventTime(event), 200)}${venue} · ${code(event.id)}`;
};

/** The list as text for a message: Slack mrkdwn, with the service's text escaped. */
export function upcomingText(input: {
  events: readonly TicketingEvent[];
  days: number;
  words: string | undefined;
  asOf: number;
}): Mrkdwn {
  const window = input.days === 1 ? md`the next day` : md`the next ${input.days} days`;
  const matching = input.words ? md` matching "${clip(input.words, 60)}"` : md``;
  const asOf = md`Event list as of ${asOfUtc(input.asOf)}.`;
  if (input.events.length === 0) return md`No upcoming events in ${window}${matching}. ${asOf}`;
  const lines = [md`*Upcoming events in ${window}${matching}* (${input.events.length})`];
  lines.push(...input.events.slice(0, MAX_LISTED).map(eventLine));
  if (input.events.length > MAX_LISTED) lines.push(md`...and ${input.events.length - MAX_LISTED} more`);
  lines.push(asOf);
  return joinMrkdwn(lines);
}

/** A promo code's quantities a "Set promo quantity" run read: before its write, and as the service answered it. */
export interface PromoStepQuantities {
  previous: number | undefined;
  /** Undefined when the write was never answered. */
  now: number | undefined;
}

/**
 * What "Set promo quantity" says it did (`unknown`: the write was never answered): the code, the
 * event, the quantity asked for, and the quantities before and now only as the figures rule let
 * them through for the run (else why they are left out). What the run asked for is always said.
 */
export function promoStepSummary(
  event: TicketingEvent,
  target: { code?: string | undefined; promoId: string },
  requested: number,
  outcome: 'updated' | 'unknown',
  quantities: { shown: Shown<PromoStepQuantities> } | { withheld: Withheld },
): Mrkdwn {
  const promo = code(target.code ?? target.promoId, 64);
  const shown = 'shown' in quantities ? quantities.shown : undefined;
  const was = shown?.previous === undefined ? md`` : md` (it allowed ${shown.previous})`;
  const left = 'withheld' in quantities ? md` ${promoStepWithheld(quantities.withheld)}` : md``;
  if (outcome === 'unknown')
    return md`The Event Ticketing Service never answered, so it is not known whether promo code ${promo} of *${eventTitle(event)}* now allows *${requested}* redemptions${was}. Check it before running the workflow again.${left}`;
  return shown?.now !== undefined
    ? md`Promo code ${promo} of *${eventTitle(event)}* now allows *${shown.now}* redemptions${was}.`
    : md`Promo code ${promo} of *${eventTitle(event)}* was set to allow *${requested}* redemptions.${left}`;
}

/** Why a "Set promo quantity" run's outputs leave its quantities out, for the workflow's author. */
function promoStepWithheld(withheld: Withheld): Mrkdwn {
  if (withheld.why === 'not-known' && withheld.reason === 'no post_in input')
    return md`Its quantities are left out: set the step's "Posts in" input to the channel a later step posts them in.`;
  return md`Its quantities are left out: ${withheldWords(withheld)}`;
}

/** The step that asks for reports, as Workflow Builder lists it and its errors name it. */
export const REPORT_STEP_TITLE = 'Get event report';

/** Most promo codes the report's text lists. */
const MAX_PROMOS = 10;

/**
 * The report as text for a message: every top-level figure, then the promo codes. Slack mrkdwn,
 * with the service's text escaped (an event named `<!channel>` pings nobody).
 */
export function reportStepText(event: Pick<TicketingEvent, 'id' | 'name'>, report: Shown<EventReport>): Mrkdwn {
  const currency = typeof report.currency === 'string' ? report.currency.slice(0, 10) : undefined;
  const lines: Mrkdwn[] = [md`*Report: ${eventTitle(event)}*`];
  for (const [key, value] of topFigures(report)) {
    lines.push(md`${clip(humanise(key), 100)}: ${clip(formatNumber(key, value, currency), 100)}`);
  }
  const promos = quantityRows(report);
  for (const row of promos.slice(0, MAX_PROMOS)) {
    lines.push(md`Promo ${code(row.label, 64)}: ${row.redeemed} of ${row.quantity} redeemed, ${row.left} left`);
  }
  if (promos.length > MAX_PROMOS) lines.push(md`...and ${promos.length - MAX_PROMOS} more promo codes`);
  const generated = typeof report.generatedAt === 'string' ? md`Generated ${clip(report.generatedAt, 40)} · ` : md``;
  lines.push(md`${generated}${code(event.id)}`);
  return joinMrkdwn(lines);
}

/** Why a run gets no figures, for the workflow's author. */
export function withheldFromReportStep(withheld: Withheld): Mrkdwn {
  if (withheld.why === 'not-known' && withheld.reason === 'no run_by input')
    return md`${escapeText(REPORT_STEP_TITLE)} needs to know who runs the workflow: set its "Run by" input to the person who used the workflow.`;
  if (withheld.why === 'not-known' && withheld.reason === 'no post_in input')
    return md`${escapeText(REPORT_STEP_TITLE)} needs to know where its figures will be posted: set its "Posts in" input to that channel.`;
  return md`${escapeText(REPORT_STEP_TITLE)} gives no figures here: ${withheldWords(withheld)}`;
}

/** A run's report that Redis lost before it was fetched. */
export function reportStepLost(): Mrkdwn {
  return md`${escapeText(REPORT_STEP_TITLE)} did not finish: the report was not fetched because Redis lost its place in the queue (emptied or evicted). Run the workflow again.`;
}
