import type { CancelledError } from '../../ticketing/errors.js';
import type { ReportProgress } from './report-queue.js';
import type { RequesterKind } from './report-waiting.js';
import type { ReportHold } from './shared-report-waiting.js';

/** A report request as it waits in Redis: the event, and where its answer goes. */
export interface ReportJob<D> {
  eventId: string;
  /** Enough to reach the person from any replica (JSON: a channel and message, a response URL). */
  delivery: D;
  requestedAt: number;
  /** Its person's round (`TURN`), which its BullMQ priority follows. Absent on jobs queued before turns. */
  round?: number | undefined;
  /** Fetched from the service even when a report of the event is cached. */
  fresh?: boolean | undefined;
  /** Its place among the reports its requester waits for, given back once it is answered. */
  hold?: ReportHold | undefined;
}

/** How a request is submitted besides its event and delivery. */
export interface SubmitOptions {
  /** Whose limit of reports waiting it counts against. @default 'person' */
  requesterKind?: RequesterKind | undefined;
  /** How the event is named (listed when a later request is refused). */
  label?: string | undefined;
  /** Ask the service even when a report of the event is cached. */
  fresh?: boolean | undefined;
  /** A place already held for it (`reserve`); else one is held here. */
  hold?: ReportHold | undefined;
}

/**
 * Where a request stands in the shared queue; besides the in-process states, `lost` (Redis no
 * longer holds it: nobody will fetch it) and `expired` (it waited past its deadline and was taken
 * out of the queue; `error` says so in the words every cancelled call uses).
 */
export type SharedReportProgress = ReportProgress | { state: 'lost' } | { state: 'expired'; error: CancelledError };
