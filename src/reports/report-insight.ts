import type { EventReport } from '../ticketing/schemas.js';

/** Where an event's sales history and forecast come from (`forecast/sales-insights.ts`; named by shape: forecast/ reads history/, which reads reports/). */
export interface InsightSource<I> {
  of(eventId: string, report?: EventReport): Promise<I | undefined>;
}

/**
 * The sales history and forecast shown under a report just read, read here and handed to the
 * message (the Slack side reads nothing): none when there is no history or it cannot be read, as
 * the report still shows.
 */
export async function reportInsight<I>(
  insights: InsightSource<I> | undefined,
  eventId: string,
  report: EventReport,
): Promise<I | undefined> {
  return insights?.of(eventId, report).catch(() => undefined);
}
