import type { Shown } from '../../figures/may-show-figures.js';
import { eventLabel, eventTitle } from '../../render/event-blocks.js';
import { clip, code, joinMrkdwn, type Mrkdwn, md } from '../../render/mrkdwn.js';
import { formatNumber, humanise } from '../../render/report-blocks.js';
import { figureOf, quantityRows, soldFigure, topFigures } from '../../reports/report-figures.js';
import type { EventReport, TicketingEvent } from '../../ticketing/schemas.js';
import type { StepOutputs } from '../answers/finish-run.js';

/**
 * The headline figures a step outputs as numbers, each read from the report by name (any case,
 * spaces or underscores: the spec does not give the report's shape). One the report lacks is left
 * out, and the manifest marks none of them required.
 */
const FIGURES: [output: string, read: (report: EventReport) => { value: number } | undefined][] = [
  ['tickets_sold', soldFigure],
  ['capacity', (report) => figureOf(report, 'capacity')],
  ['gross_revenue', (report) => figureOf(report, 'grossRevenue') ?? figureOf(report, 'revenue')],
  ['net_revenue', (report) => figureOf(report, 'netRevenue')],
  ['check_ins', (report) => figureOf(report, 'checkIns')],
  ['refunds', (report) => figureOf(report, 'refunds')],
];

/** Most promo codes the text lists. */
const MAX_PROMOS = 10;

/**
 * The report as text for a message: every top-level figure, then the promo codes. Slack mrkdwn,
 * with the service's text escaped (an event named `<!channel>` pings nobody).
 */
export function reportText(event: Pick<TicketingEvent, 'id' | 'name'>, report: Shown<EventReport>): Mrkdwn {
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

/** The step's outputs: the event, the figures found as numbers, and the report as text. */
export function reportOutputs(event: Pick<TicketingEvent, 'id' | 'name'>, report: Shown<EventReport>): StepOutputs {
  const outputs: StepOutputs = {
    event_id: event.id,
    event_name: eventLabel(event),
    report_text: reportText(event, report),
  };
  if (typeof report.currency === 'string' && report.currency) outputs.currency = report.currency.slice(0, 10);
  for (const [output, read] of FIGURES) {
    const found = read(report);
    if (found) outputs[output] = found.value;
  }
  return outputs;
}
