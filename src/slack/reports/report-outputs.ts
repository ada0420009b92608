import type { Shown } from '../../figures/may-show-figures.js';
import { eventLabel } from '../../render/event-blocks.js';
import { reportStepText } from '../../render/workflow-step-texts.js';
import { figureOf, soldFigure } from '../../reports/report-figures.js';
import type { EventReport, TicketingEvent } from '../../ticketing/schemas.js';
import type { StepOutputs } from '../replies/finish-run.js';

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

/** The step's outputs: the event, the figures found as numbers, and the report as text. */
export function reportOutputs(event: Pick<TicketingEvent, 'id' | 'name'>, report: Shown<EventReport>): StepOutputs {
  const outputs: StepOutputs = {
    event_id: event.id,
    event_name: eventLabel(event),
    report_text: reportStepText(event, report),
  };
  if (typeof report.currency === 'string' && report.currency) outputs.currency = report.currency.slice(0, 10);
  for (const [output, read] of FIGURES) {
    const found = read(report);
    if (found) outputs[output] = found.value;
  }
  return outputs;
}
