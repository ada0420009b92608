import type { EventReport } from '../ticketing/schemas.js';
import { reportAtHand, reportFor } from './ask-for-report.js';
import type { SlackDeps } from './deps.js';

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
  const atHand = await reportAtHand(deps, eventId);
  if (atHand) return atHand;
  await fetching();
  return reportFor(deps, eventId, userId);
}

/** A new watch's event not checked yet: the report its conditions were read from is its first check. */
export async function countAsFirstCheck(deps: SlackDeps, eventId: string, report: EventReport): Promise<void> {
  if (!deps.watches || (await deps.watches.lastCheck(eventId))) return;
  await deps.watches.observe(eventId, report);
}
