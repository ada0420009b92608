import type { Shown } from '../figures/may-show-figures.js';
import { soldOfCapacity, topFigures } from '../reports/report-figures.js';
import type { EventReport, TicketingEvent } from '../ticketing/schemas.js';
import { type Block, context } from './block-kit.js';
import { asOfLine, eventSection } from './event-blocks.js';
import { md, readerInstant } from './mrkdwn.js';
import { figureFields, reportCurrency } from './report-blocks.js';

/** Headline figures an unfurl shows, at most. */
const UNFURL_FIGURES = 4;

export interface EventUnfurlInput {
  event: TicketingEvent;
  /** How fresh the catalog's knowledge of the event is. */
  asOf: number;
  /** A report already at hand (a watch's last check), as the figures rule let it through: its headline figures, with when it was read. */
  report?: Shown<{ report: EventReport; readAt: number }> | undefined;
}

/**
 * The card an event page link unfolds into: the event (its times in its zone and the reader's,
 * the venue), and the headline figures of a report at hand, with when they were read.
 */
export function eventUnfurlBlocks(input: EventUnfurlInput): Block[] {
  const blocks: Block[] = [...eventSection(input.event)];
  if (input.report) {
    const { report, readAt } = input.report;
    const fields = figureFields(topFigures(report).slice(0, UNFURL_FIGURES), reportCurrency(report), 60);
    if (fields) blocks.push(fields);
    const pair = soldOfCapacity(report);
    const share = pair ? md` · ${Math.min(100, Math.round((pair.sold / pair.capacity) * 1000) / 10)}% sold` : md``;
    const read = readerInstant(readAt);
    blocks.push(context(md`:bar_chart: Figures as of ${read}${share}`));
  }
  blocks.push(context(asOfLine(input.asOf, 'event')));
  return blocks;
}
