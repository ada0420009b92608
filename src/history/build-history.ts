import type { Logger } from '../logger.js';
import type { ReportReadSubscription } from '../reports/report-reads.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { SalesHistory } from './sales-history.js';
import { salesPointOf } from './sales-point.js';

const PRUNE_EVERY_MS = 3_600_000;

export interface BuiltHistory {
  history: SalesHistory;
}

/**
 * The sales history, fed by every report read (`onReportRead`: the replica that reads a report writes
 * its point: once). It never asks for a report of its own. Histories of events ended 30 days ago
 * are pruned, looked at once an hour as reports come in.
 */
export function buildSalesHistory(options: {
  store: KeyValueStore;
  /** Every report read (by anyone): a point of its event's history. */
  reads: ReportReadSubscription;
  /** The event's dates as the catalog in memory has them (none when not known). */
  eventDates: (eventId: string) => { startsAtMs: number; endsAtMs: number } | undefined;
  track: <T>(work: Promise<T>) => Promise<T>;
  clock: Clock;
  logger: Logger;
}): BuiltHistory {
  const logger = options.logger.child({ component: 'sales-history' });
  const history = new SalesHistory({ store: options.store, logger });
  let lastPrune = Number.NEGATIVE_INFINITY;
  const write = async (eventId: string, report: EventReport) => {
    const now = options.clock.now();
    const point = salesPointOf(report, now);
    if (point) await history.record(eventId, point, options.eventDates(eventId) ?? {});
    if (now - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now;
      await history.prune(now);
    }
  };
  // A report read from the service (by anyone): a point of its event's history, written in the background.
  const reportRead = (eventId: string, report: EventReport) => {
    options
      .track(write(eventId, report))
      .catch((error: unknown) => logger.warn('A report could not be added to its sales history', { eventId, error }));
  };
  options.reads.onReportRead(reportRead);
  return { history };
}
