import type { webApi } from '@slack/bolt';
import { shownOrNone } from '../../../figures/may-show-figures.js';
import { md } from '../../../render/mrkdwn.js';
import { reportCurrency } from '../../../render/report-blocks.js';
import type { TicketingEvent } from '../../../ticketing/schemas.js';
import { conditionsOffered, defaultConditions } from '../../../watches/watch-condition.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { openWatchModal } from '../../modals/modal-openers.js';
import { reportFiguresAtHand } from '../../reports/ask-for-report.js';

/**
 * The watch form for one event (an event card's or a Work Object's Watch button), offering what the
 * event's report at hand holds: its figures only to someone the figures rule lets read them.
 */
export async function openWatchFormForEvent(
  deps: SlackDeps,
  client: webApi.WebClient,
  request: {
    triggerId: string;
    channelId: string | undefined;
    personal: boolean;
    event: TicketingEvent;
    userId: string;
  },
): Promise<void> {
  const { triggerId, channelId, personal, event, userId } = request;
  const atHand = await reportFiguresAtHand(deps, event.id).catch(() => undefined);
  const report = atHand && shownOrNone(atHand, await privateReader(deps.audience, userId), deps.figuresPolicy);
  await openWatchModal(deps, client, {
    triggerId,
    channelId,
    personal,
    event,
    offered: report ? conditionsOffered(report) : [],
    ticked: report ? defaultConditions(report) : [],
    currency: report ? reportCurrency(report) : undefined,
    note: report
      ? md`Offered from the event's latest report: only what it holds. More in the box below.`
      : md`Type conditions below, or leave it empty for the usual ones: the event's report is read when you submit.`,
  });
}
