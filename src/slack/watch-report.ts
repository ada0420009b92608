import type { Mrkdwn } from '../render/mrkdwn.js';
import { md } from '../render/mrkdwn.js';
import type { EventReport } from '../ticketing/schemas.js';
import { reportFiguresAtHand, reportFor } from './ask-for-report.js';
import type { SlackDeps } from './deps.js';
import { restartingMessage, userMessageFor } from './user-message.js';

/**
 * The report a new watch's conditions are read from: the latest at hand, or one fetched for it in
 * the person's turn within the report limit (`fetching` tells them first that they may wait).
 */
export async function reportToWatch(
  deps: SlackDeps,
  eventId: string,
  userId: string,
  fetching: () => Promise<unknown>,
): Promise<EventReport> {
  const atHand = await reportFiguresAtHand(deps, eventId);
  if (atHand) return atHand;
  await fetching();
  return reportFor(deps, eventId, userId);
}

/**
 * A new watch's event not checked yet: the report its conditions were read from is its first
 * check. Best effort: the watch is set either way, and the scheduler checks it if this fails.
 */
export async function countAsFirstCheck(deps: SlackDeps, eventId: string, report: EventReport): Promise<void> {
  try {
    if (!deps.watches || (await deps.watches.lastCheck(eventId))) return;
    await deps.watches.observe(eventId, report);
  } catch (error) {
    deps.logger.warn('A new watch could not record its first check; the scheduler will check it', { eventId, error });
  }
}

/** Why a watch was not set, in words: the error's, or that eventops was restarting. */
export function watchNotSet(deps: SlackDeps, error: unknown): Mrkdwn {
  return deps.work.stopping.aborted ? restartingMessage(md`the watch was not set`) : userMessageFor(error);
}
