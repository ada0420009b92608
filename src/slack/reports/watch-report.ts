import type { Mrkdwn } from '../../render/mrkdwn.js';
import { md } from '../../render/mrkdwn.js';
import type { ReportRead } from '../../reports/event-record.js';
import type { SetWatchDeps } from '../../watches/set-watch.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { restartingMessage, userMessageFor } from '../replies/user-message.js';
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

/** What setting a watch needs, from the listeners' deps (the use case is `watches/set-watch.ts`). */
export function setWatchDeps(deps: SlackDeps & { watches: NonNullable<SlackDeps['watches']> }): SetWatchDeps {
  return {
    watches: deps.watches,
    reportToWatch: (eventId, userId, fetching) => reportToWatch(deps, eventId, userId, fetching),
    forecast: async (eventId, report) => (await deps.insights?.of(eventId, report))?.forecast,
    comparables: async (eventId, report) => (await deps.insights?.of(eventId, report))?.comparables,
    poke: () => deps.watchScheduler?.poke(),
    clock: deps.clock,
    logger: deps.logger,
  };
}

/** Why a watch was not set, in words: the error's, or that eventops was restarting. */
export function watchNotSet(deps: SlackDeps, error: unknown): Mrkdwn {
  return deps.work.stopping.aborted ? restartingMessage(md`the watch was not set`) : userMessageFor(error);
}
