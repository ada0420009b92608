import type { EventReport } from '../ticketing/schemas.js';
import type { CachedReport } from './queue/report-queue.js';

/** A report read earlier, and when its call went out. */
export interface ReportRead {
  report: EventReport;
  readAt: number;
}

/** Where reports already read are kept: a watch's last check, the caches. Each may fail or have none. */
export type ReportSource = (
  eventId: string,
  readAfterMs: number,
) => Promise<CachedReport | undefined> | CachedReport | undefined;

/**
 * The event's report at hand, at no report call: the freshest of the sources, and never one read
 * more than `maxAgeMs` before `now` (a caller that accepts an older one says so, and shows when it
 * was read). A source that fails is passed over.
 */
export async function reportAtHand(
  sources: readonly ReportSource[],
  eventId: string,
  options: { now: number; maxAgeMs: number },
): Promise<ReportRead | undefined> {
  const oldest = options.now - options.maxAgeMs;
  let freshest: ReportRead | undefined;
  for (const source of sources) {
    // Each source is asked only for a report fresher than the best found so far.
    const after = freshest ? freshest.readAt : oldest - 1;
    const read = await Promise.resolve()
      .then(() => source(eventId, after))
      .catch(() => undefined);
    if (read && read.readAt > after && read.readAt >= oldest) freshest = { report: read.report, readAt: read.readAt };
  }
  return freshest;
}
