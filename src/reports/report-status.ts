import type { EventReport } from '../ticketing/schemas.js';

/**
 * Where a person's report stands, as the use case tells it; `render/report-blocks.ts` turns each
 * one into the message. `queued` and `fetching` are progress; every other state is the last word.
 */
export type ReportStatus =
  | { state: 'queued'; position: number; estimatedWaitMs: number }
  /** Being fetched (or already at hand): nobody ahead, no wait, as the queues' own progress says. */
  | { state: 'fetching'; position: 0; estimatedWaitMs: 0 }
  | { state: 'report'; report: EventReport }
  | { state: 'failed'; error: unknown }
  /** Redis no longer holds the request (flushed, evicted): nobody will fetch it. */
  | { state: 'lost' }
  /** It waited past its deadline and left the queue; `error` says so. */
  | { state: 'expired'; error: unknown }
  /** Given up while queued because the bot is shutting down. */
  | { state: 'abandoned' };

export const FETCHING: ReportStatus = { state: 'fetching', position: 0, estimatedWaitMs: 0 };

/** Whether a status is the last one its message shows. */
export const isFinal = (status: ReportStatus) => status.state !== 'queued' && status.state !== 'fetching';
