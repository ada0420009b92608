import type { Logger } from '../logger.js';
import type { ActivityStore } from '../store/activity-store.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { ReportAsk, ReportSurface } from './report-surface.js';

/** What both report flows are given. */
export interface ReportFlowDeps {
  /** Where a delivered report is recorded for App Home. */
  activity: Pick<ActivityStore, 'recordReport'>;
  clock: Clock;
  logger: Logger;
  /** Aborted once shutdown begins. */
  stopping: AbortSignal;
  /** Least time between two progress edits of one message. */
  progressIntervalMs: number;
  /**
   * A report as the event's record knows it now (a cached one with the promo writes since
   * applied). @default the report as it is
   */
  current?: ((eventId: string, report: EventReport) => Promise<EventReport>) | undefined;
}

/**
 * Ask for a report and follow it to its surface: one interface over the in-process queue
 * (`inProcessReports`) and the replicas' shared one (`sharedReports`), chosen once by
 * `buildReports` (`reports.ts`). A person's report (the command, a button, the form), a workflow
 * step's, and a caller waiting for one (a promo code looked up) follow it; the surface shows each
 * status as it comes.
 */
export interface ReportFlow<W> {
  follow(ask: ReportAsk, surface: ReportSurface<W>): Promise<void>;
}
