import type { Mrkdwn } from '../../render/mrkdwn.js';
import { md } from '../../render/mrkdwn.js';
import type { ReportRead } from '../../reports/report-at-hand.js';
import { restartingMessage, userMessageFor } from '../answers/user-message.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { reportAtHand, reportFor } from './ask-for-report.js';

/**
 * The report a new watch's conditions are read from: the latest at hand, or one fetched for it in
 * the person's turn within the report limit (`fetching` tells them first that they may wait).
 */
export async function reportToWatch(
  deps: SlackDeps,
  eventId: string,
  userId: string,
  fetching: () => Promise<unknown>,
): Promise<ReportRead> {
  const atHand = await reportAtHand(deps, eventId);
  if (atHand) return atHand;
  await fetching();
  const readAt = deps.clock.now();
  return { report: await reportFor(deps, eventId, userId), readAt };
}

/**
 * A new watch's event not checked yet: the report its conditions were read from is its first
 * check. Best effort: the watch is set either way, and the scheduler checks it if this fails.
 */
export async function countAsFirstCheck(deps: SlackDeps, eventId: string, read: ReportRead): Promise<void> {
  try {
    if (!deps.watches || (await deps.watches.lastCheck(eventId))) return;
    // Recorded as read when it was, not now: a cached report is no fresher for being used again.
    await deps.watches.observe(eventId, read.report, read.readAt);
  } catch (error) {
    deps.logger.warn('A new watch could not record its first check; the scheduler will check it', { eventId, error });
  }
}

/** Why a watch was not set, in words: the error's, or that eventops was restarting. */
export function watchNotSet(deps: SlackDeps, error: unknown): Mrkdwn {
  return deps.work.stopping.aborted ? restartingMessage(md`the watch was not set`) : userMessageFor(error);
}
