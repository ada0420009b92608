import type { RespondFn, webApi } from '@slack/bolt';
import { type FiguresPolicy, type Reader, showFigures } from '../../figures/may-show-figures.js';
import type { SalesInsights } from '../../forecast/sales-insights.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SlackMessage } from '../../render/block-kit.js';
import {
  notPostedInChannelMessage,
  postedInChannelMessage,
  type ReportAnswer,
  reportAnswerMessage,
  reportNotHereMessage,
} from '../../render/report-answer.js';
import type { ShownReportStatus } from '../../render/report-blocks.js';
import { reportStreamEnd, reportStreamProgress, reportStreamStart } from '../../render/report-stream-chunks.js';
import type { SalesFigures } from '../../render/sales-blocks.js';
import type { SharingDoubt } from '../../render/shared-channel-blocks.js';
import { reportInsight } from '../../reports/report-insight.js';
import { isFinal, type ReportStatus } from '../../reports/report-status.js';
import type { ReportAsk, ReportDelivery, ReportSurface, ReportView } from '../../reports/report-surface.js';
import type { KeyValueStore } from '../../store/key-value-store.js';
import type { RateLimitSpec } from '../../ticketing/rate-limit.js';
import type { EventReport } from '../../ticketing/schemas.js';
import { type ConversationAudience, roomOf } from '../deps/conversation-audience.js';
import { conversationReader } from '../deps/figures-reader.js';
import type { ReportStreams } from '../deps/report-streams.js';
import type { WorkflowRuns } from '../deps/workflow-runs.js';
import type { MessageTarget } from '../replies/report-target.js';
import { countSlackError, slackErrorCode } from '../replies/slack-errors.js';
import { userMessageFor } from '../replies/user-message.js';
import { ReportMessage } from './report-message.js';

/** The store's lock, taken in turn by every replica that edits one report's message. */
type Exclusive = KeyValueStore['exclusive'];

const messageLock = (messageKey: string) => `report-message:${messageKey}`;

/** Without replicas nobody else edits the message: no lock to take. */
const lockWith =
  (exclusive: Exclusive | undefined): ReportSurface<MessageTarget>['exclusive'] =>
  (messageKey, work) =>
    exclusive ? exclusive(messageLock(messageKey), work) : work();

/**
 * Who reads a report's message: the person who asked, in the channel it was posted in or
 * privately. Asked again when the report comes (on whichever replica): the channel may have been
 * shared, or the person made a guest, while it waited.
 */
async function reportReader(transport: DeliveryDeps, where: MessageTarget, userId: string): Promise<Reader> {
  const { audience } = transport;
  return {
    room: where.kind === 'private' ? { kind: 'private' } : roomOf(await audience.of(where.channel)),
    person: await audience.person(userId),
  };
}

/** The report and its status for a reader, through the figures rule: shown, or why it is held back. */
async function shownFor(
  transport: DeliveryDeps,
  ask: ReportAsk,
  reported: Extract<ReportStatus, { state: 'report' }>,
  reader: Reader,
): Promise<{ status: ShownReportStatus; sales?: ReportAnswer['sales'] }> {
  const gate = showFigures(reported.report, reader, transport.figuresPolicy);
  if ('withheld' in gate) return { status: { state: 'withheld', withheld: gate.withheld } };
  return {
    status: { state: 'report', report: gate.shown },
    sales: await salesOf(transport, ask.eventId, reported.report, reader),
  };
}

/** The full report as a file, titled as people know the event: its name (its id is in the file and the report). */
const reportFile = (ask: ReportAsk, report: unknown) => ({
  filename: `report-${ask.eventId}.json`,
  title: `Report: ${ask.label}`.slice(0, 250),
  content: JSON.stringify(report, null, 2),
});

/** What the renderer is handed for one status of `ask`'s message (errors in the words of `userMessageFor`). */
function answerOf(
  transport: DeliveryDeps,
  ask: ReportAsk,
  parts: Pick<ReportAnswer, 'status' | 'sales' | 'offerToPost'> & {
    attachmentNote?: ReportAnswer['about']['attachmentNote'];
  },
): ReportAnswer {
  return {
    status: parts.status,
    label: ask.label,
    reportLimit: transport.reportLimit,
    about: {
      eventId: ask.eventId,
      describeError: userMessageFor,
      attachmentNote: parts.attachmentNote,
      cancelled: ask.cancelled === true,
    },
    sales: parts.sales,
    offerToPost: parts.offerToPost,
  };
}

/**
 * A report's message as the use case sees it: each status rendered by the one renderer (errors in
 * the words of `userMessageFor`), the full JSON attached in the thread before the report shows.
 * The report and its sales go through the figures rule first; held back, the person is told why.
 * A streamed message is given each status's chunks too.
 */
function reportView(message: ReportMessage, ask: ReportAsk, transport: DeliveryDeps): ReportView<MessageTarget> {
  return {
    where: message.where,
    async show(reported: ReportStatus) {
      const { where } = message;
      if (where.kind === 'private' && where.postInChannel && isFinal(reported))
        return postInChannel(message, where.postInChannel, ask, transport, reported);
      if (reported.state === 'queued' || reported.state === 'fetching') {
        const notice = reportAnswerMessage(answerOf(transport, ask, { status: reported }));
        return message.show(notice, false, reportStreamProgress(reported));
      }
      const shown =
        reported.state === 'report'
          ? await shownFor(transport, ask, reported, await reportReader(transport, where, ask.userId))
          : { status: reported };
      // Why is the asker's to read, not the channel's: the channel message only says it is not here.
      if (shown.status.state === 'withheld' && where.kind === 'channel') {
        await message.whisper(ask.userId, reportAnswerMessage(answerOf(transport, ask, shown)));
        return message.show(reportNotHereMessage(ask.label), true, reportStreamEnd(false));
      }
      const attachmentNote =
        shown.status.state === 'report' ? await message.attach(reportFile(ask, shown.status.report)) : undefined;
      const answer = answerOf(transport, ask, {
        ...shown,
        attachmentNote,
        offerToPost: where.kind === 'private' ? where.sharedChannel : undefined,
      });
      return message.show(reportAnswerMessage(answer), true, reportStreamEnd(shown.status.state === 'report'));
    },
  };
}

/**
 * Post in channel: the report, once it comes, is posted in the channel if the figures rule lets it
 * there now (the person chose to share it in a channel Slack said is shared; a guest, a stranger or
 * an unknown answer still holds it back), and the private message says so. Anything else (a
 * refusal, a failure, the rule saying no) stays private, and the click's claim is released so
 * the button can be used again; it counts as done only once the post succeeded.
 */
async function postInChannel(
  message: ReportMessage,
  post: { channel: string; once: string; owner: string },
  ask: ReportAsk,
  transport: DeliveryDeps,
  reported: ReportStatus,
): Promise<unknown> {
  const answer = (parts: Pick<ReportAnswer, 'status' | 'sales'>): SlackMessage =>
    reportAnswerMessage(answerOf(transport, ask, parts));
  // The click's claim is settled before the person is answered: a click that follows the answer
  // finds the button usable again (or the report posted), never "on its way".
  let settled = false;
  const settle = async (posted: boolean) => {
    if (settled) return;
    settled = true;
    await transport.runs?.finish(post.once, post.owner, posted);
  };
  try {
    if (reported.state !== 'report') {
      await settle(false);
      return await message.show(answer({ status: reported }), true);
    }
    const reader = await conversationReader(transport.audience, post.channel, ask.userId, { chosenAnyway: true });
    const shown = await shownFor(transport, ask, reported, reader);
    if (shown.status.state !== 'report') {
      await settle(false);
      return await message.show(answer(shown), true);
    }
    let ts: string | undefined;
    try {
      ts = await message.postIn(post.channel, answer(shown));
    } catch (error) {
      countSlackError(transport.metrics, 'chat.postMessage', error);
      transport.logger.info('Could not post a report in the channel', { slackError: slackErrorCode(error) });
      await settle(false);
      return await message.show(notPostedInChannelMessage(slackErrorCode(error)), true);
    }
    await settle(true);
    // As a report asked for in the channel comes: with the full report as a file in its thread.
    const unattached = ts ? await message.upload(post.channel, ts, reportFile(ask, shown.status.report)) : undefined;
    return await message.show(postedInChannelMessage(unattached), true);
  } finally {
    await settle(false);
  }
}

/** A report's sales and forecast as the figures rule lets them through; none without a history. */
async function salesOf(
  transport: DeliveryDeps,
  eventId: string,
  report: EventReport,
  reader: Reader,
): Promise<ReportAnswer['sales']> {
  const insight = await reportInsight(transport.insights, eventId, report);
  const gate = showFigures<SalesFigures>({ report, insight }, reader, transport.figuresPolicy);
  return 'shown' in gate ? gate.shown : undefined;
}

/**
 * What the Slack side of reports is given, on the replica where a person asked and on the one that
 * finishes the report (which also needs the store, the activity and the clock: `deliverReportInSlack`).
 */
export interface DeliveryDeps {
  reportLimit: RateLimitSpec;
  /** The event's sales history and forecast, shown under a report (none: the report alone). */
  insights?: SalesInsights | undefined;
  logger: Logger;
  metrics?: Metrics | undefined;
  /** With replicas: the store's lock that orders edits of one message. */
  exclusive?: Exclusive | undefined;
  /** Who can read a conversation, and who a person is: the figures rule's facts. */
  audience: Pick<ConversationAudience, 'of' | 'person'>;
  /** Where a Post in channel click's claim is finished (done once posted, else released). */
  runs?: Pick<WorkflowRuns, 'finish'> | undefined;
  figuresPolicy?: FiguresPolicy | undefined;
  /** Where a report's wait streams (REPORT_STREAMING=on); absent: a notice edited in place. */
  streams?: ReportStreams | undefined;
}

/** Where a person asked for a report through Bolt (a command, a button, a modal). */
export interface SlackReportRequest extends ReportAsk {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  /** The asker's team (Bolt's context.teamId, else its enterpriseId): whom a streamed wait is addressed to. */
  teamId?: string | undefined;
  /** The request's response URL, so that another replica can still answer privately. */
  responseUrl?: string | undefined;
  /** The channel is shared with another organization (or Slack could not say): the report is answered privately. */
  keepPrivate?: SharingDoubt | undefined;
  /** Post in channel was clicked: the wait shows privately, the report is posted in the channel (the click's claim). */
  postInChannel?: { once: string; owner: string } | undefined;
}

/** The Slack side of one request: its message posted in the channel (streamed, where Slack lets it), or privately. */
export function reportSurface(transport: DeliveryDeps, request: SlackReportRequest): ReportSurface<MessageTarget> {
  const log = transport.logger.child({ command: 'report', eventId: request.eventId, channel: request.channelId });
  return {
    async open(first) {
      // A report's figures are shown only by `show`, after the figures rule: it never opens a message.
      const status: ShownReportStatus =
        first.state === 'report' ? { state: 'fetching', position: 0, estimatedWaitMs: 0 } : first;
      const opening = reportAnswerMessage(answerOf(transport, request, { status }));
      // Only a wait streams: an answer known at once (refused, failed) is one message, as today.
      const stream =
        transport.streams && (status.state === 'queued' || status.state === 'fetching')
          ? {
              streams: transport.streams,
              chunks: reportStreamStart(status, request.label),
              expectedMs: status.state === 'queued' ? status.estimatedWaitMs : 0,
            }
          : undefined;
      const message = await ReportMessage.open(
        { ...request, metrics: transport.metrics, stream },
        request.channelId,
        opening,
        log,
      );
      return reportView(message, request, transport);
    },
    exclusive: lockWith(transport.exclusive),
  };
}

/** A message opened on any replica, resumed on the one that fetched the report, and its lock. */
export function resumedReport(
  client: webApi.WebClient,
  transport: DeliveryDeps & { exclusive: Exclusive },
  delivery: ReportDelivery<MessageTarget>,
): { view: ReportView<MessageTarget>; exclusive: ReportSurface<MessageTarget>['exclusive'] } {
  const log = transport.logger.child({ command: 'report', eventId: delivery.eventId });
  return {
    view: reportView(ReportMessage.resume(client, delivery.where, log, transport.streams), delivery, transport),
    exclusive: lockWith(transport.exclusive),
  };
}
