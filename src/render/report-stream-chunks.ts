import type { ReportStatus } from '../reports/report-status.js';
import { clipName, type Mrkdwn, md } from './mrkdwn.js';

/**
 * The chunks a streamed report's message is made of (`chat.startStream`, `chat.appendStream`,
 * `chat.stopStream`): a plan titled with the event, and one task per step. Typed here, as Slack's
 * chunk types are, so that render imports no Slack transport.
 */
export type ReportStreamChunk =
  | { type: 'plan_update'; title: Mrkdwn }
  | {
      type: 'task_update';
      id: ReportStep;
      title: Mrkdwn;
      status: 'pending' | 'in_progress' | 'complete' | 'error';
      details?: Mrkdwn;
    };

/** The steps a person's report goes through, in order. */
export type ReportStep = 'queue' | 'fetch' | 'draw';

type Progress = Extract<ReportStatus, { state: 'queued' | 'fetching' }>;

const TITLES: Record<ReportStep, Mrkdwn> = {
  queue: md`Waiting its turn in the report limit`,
  fetch: md`Fetching the report`,
  draw: md`Drawing the report`,
};

const task = (
  id: ReportStep,
  status: 'pending' | 'in_progress' | 'complete' | 'error',
  details?: Mrkdwn,
): ReportStreamChunk => ({ type: 'task_update', id, title: TITLES[id], status, ...(details ? { details } : {}) });

/** Where a queued report stands, in the words of today's notice. */
const place = (queued: Extract<Progress, { state: 'queued' }>) =>
  md`position ${queued.position}, about ${Math.max(1, Math.ceil(queued.estimatedWaitMs / 1000))} s`;

/** The progress steps of a status: the queue with its place, or the queue done and the fetch under way. */
function progressChunks(status: Progress): ReportStreamChunk[] {
  return status.state === 'queued'
    ? [task('queue', 'in_progress', place(status))]
    : [task('queue', 'complete'), task('fetch', 'in_progress')];
}

/** A stream's first chunks: the plan named after the event, every step, the first status on it. */
export function reportStreamStart(status: Progress, label: string): ReportStreamChunk[] {
  return [
    { type: 'plan_update', title: md`Report for ${clipName(label, 150)}` },
    ...progressChunks(status),
    ...(status.state === 'queued' ? [task('fetch', 'pending')] : []),
    task('draw', 'pending'),
  ];
}

/** What changed since the last chunk: the place in the queue, or the fetch begun. */
export function reportStreamProgress(status: Progress): ReportStreamChunk[] {
  return progressChunks(status);
}

/** The last chunks, sent with the stop (the report itself is the notice above, edited): every step done, or where it failed. */
export function reportStreamEnd(delivered: boolean): ReportStreamChunk[] {
  return delivered
    ? [task('queue', 'complete'), task('fetch', 'complete'), task('draw', 'complete')]
    : [task('fetch', 'error'), task('draw', 'pending')];
}

/**
 * A stream's words when it is stopped before its report (kept no longer than Slack lets a stream
 * live) or when Slack closed it first: the reply, edited to plain text, points at the notice.
 */
export const REPORT_STREAM_CLOSING = {
  handedOff: md`This report is taking a while: the message above follows the rest of its wait.`,
  ended: md`This report's wait is over: the message above has the report, or why it could not be made.`,
} as const;

/** The chunks a stream is stopped with when its wait outlasts it: the plan says where the rest is. */
export function reportStreamHandOff(): ReportStreamChunk[] {
  return [{ type: 'plan_update', title: REPORT_STREAM_CLOSING.handedOff }];
}
