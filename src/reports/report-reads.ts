import type { Logger } from '../logger.js';
import type { FetchReportOptions } from '../ticketing/client.js';
import { parseId } from '../ticketing/ids.js';
import type { EventReport } from '../ticketing/schemas.js';

/** Who a report was read for: a person (a watch counts it as a check of the event), or background work. */
export type ReadFor = 'person' | 'background';

/** Hears one report read from the service; never throws into the read (a failure is logged). */
export type ReportReadListener = (eventId: string, report: EventReport, readFor: ReadFor) => void;

/** What follows every report read, registered by whoever needs it: history, promo codes, watches. */
export interface ReportReadSubscription {
  /** Calls `listener` for each report read from now on, on this process; returns its removal. */
  onReportRead(listener: ReportReadListener): () => void;
}

/** How a report queue fetches one report (the client's `fetchReport`). */
export type FetchReport = (eventId: string, options: FetchReportOptions) => Promise<EventReport>;

/**
 * Every report read from the service, by either queue, for anyone (a person, a watch, a workflow
 * step): read once, on the replica that fetched it, so each listener sees it once.
 */
export class ReportReads implements ReportReadSubscription {
  readonly #listeners = new Set<ReportReadListener>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  onReportRead(listener: ReportReadListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** `fetch`, whose every report goes to the listeners before its caller has it. */
  reading(fetch: FetchReport): FetchReport {
    return async (eventId, options) => {
      const id = parseId('event', eventId);
      const report = await fetch(id, options);
      const readFor: ReadFor = (options.priority ?? 'interactive') === 'interactive' ? 'person' : 'background';
      for (const listener of this.#listeners) {
        try {
          listener(id, report, readFor);
        } catch (error) {
          this.#logger.warn('A report read listener failed', { eventId: id, error });
        }
      }
      return report;
    };
  }
}
