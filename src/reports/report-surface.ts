import type { RequesterKind } from './queue/report-waiting.js';
import type { ReportStatus } from './report-status.js';

/**
 * The Slack-side effects the report use case needs, passed in: it says what to show, the
 * transport decides how (a channel message edited in place, a private answer, the file in the
 * thread). `W` is where a message lives, in a form any replica can pick up (JSON).
 */
export interface ReportView<W> {
  readonly where: W;
  /**
   * `result` for a report handed to a program (a workflow step's run, a caller waiting for it)
   * rather than a person's message (the default): it is given once, so it has no edits to order
   * under a lock, and nobody's App Home records it.
   */
  readonly kind?: 'message' | 'result';
  /** Replaces the message; a progress status may be skipped by the transport, a final one never. */
  show(status: ReportStatus): Promise<unknown>;
}

/** Where the person asked: opens the one message that follows their report. */
export interface ReportSurface<W> {
  open(first: ReportStatus): Promise<ReportView<W>>;
  /**
   * Runs `work` holding the message's lock, so that edits from several replicas never interleave
   * (a late progress edit never covers the report another replica has just posted).
   */
  exclusive<T>(messageKey: string, work: () => Promise<T>): Promise<T>;
}

/** One person's request for one event's report. */
export interface ReportAsk {
  eventId: string;
  /** How the messages name the event (its name when it has one). */
  label: string;
  userId: string;
  /**
   * Whose limit of reports waiting it counts against: the person's (the default), or the one
   * every workflow step shares (`step`: a report step's run).
   */
  requesterKind?: RequesterKind | undefined;
  /** Ask the service even when a report of the event is cached (the one at hand did not answer). */
  fresh?: boolean | undefined;
  /** The event was cancelled when it was asked for: its report says so. */
  cancelled?: true | undefined;
}

/** What every replica needs to finish a report someone asked for on any of them (persisted as JSON). */
export interface ReportDelivery<W> extends ReportAsk {
  where: W;
  /** Names the lock that keeps progress edits from landing after the report. */
  messageKey: string;
}
