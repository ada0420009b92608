import type { RespondFn, webApi } from '@slack/bolt';
import { type FiguresPolicy, type Reader, showFigures } from '../../figures/may-show-figures.js';
import type { SalesInsights } from '../../forecast/sales-insights.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { LIMITS, plainMessage, type SlackMessage } from '../../render/block-kit.js';
import { code, type Mrkdwn, md, shorten } from '../../render/mrkdwn.js';
import { reportProgressMessage, type ShownReportStatus } from '../../render/report-blocks.js';
import { reportSalesBlocks } from '../../render/sales-blocks.js';
import { postInChannelBlocks, type SharingDoubt } from '../../render/shared-channel-blocks.js';
import { isFinal, type ReportStatus } from '../../reports/report-status.js';
import type {
  ReportAsk,
  ReportDelivery,
  ReportMessages,
  ReportSurface,
  ReportView,
} from '../../reports/report-surface.js';
import type { KeyValueStore } from '../../store/key-value-store.js';
import type { RateLimitSpec } from '../../ticketing/rate-limit.js';
import type { EventReport } from '../../ticketing/schemas.js';
import { postCounted, updateCounted } from '../answers/posted-messages.js';
import type { MessageTarget } from '../answers/report-target.js';
import { respondPrivately } from '../answers/respond-safely.js';
import { countSlackError, slackErrorCode } from '../answers/slack-errors.js';
import { userMessageFor } from '../answers/user-message.js';
import { withoutRichBlocks } from '../answers/without-rich-blocks.js';
import { type ConversationAudience, roomOf } from '../deps/conversation-audience.js';
import { conversationReader } from '../deps/figures-reader.js';
import type { WorkflowRuns } from '../deps/workflow-runs.js';

/** response_url takes about 5 uses; progress through it is kept to a couple of edits. */
const MAX_RESPOND_UPDATES = 2;

type Target = { kind: 'channel'; channel: string; ts: string } | { kind: 'private'; updates: number };

/** Bolt's `respond`, rebuilt from a response URL alone (another replica has no Bolt request). */
function respondVia(responseUrl: string): RespondFn {
  return (async (message: unknown) => {
    const response = await fetch(responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(typeof message === 'string' ? { text: message } : message),
    });
    if (!response.ok) throw new Error(`response_url answered ${response.status}`);
  }) as unknown as RespondFn;
}

/**
 * Whether a response URL is Slack's: https://hooks.slack.com/..., or on the Web API's own origin
 * when SLACK_API_URL points elsewhere (a local sandbox, the tests' fake Slack).
 */
export function isSlackHook(url: string, slackApiUrl: string | undefined): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  if (parsed.protocol === 'https:' && parsed.hostname === 'hooks.slack.com' && parsed.port === '') return true;
  const api = slackApiUrl && URL.canParse(slackApiUrl) ? new URL(slackApiUrl) : undefined;
  return api !== undefined && api.hostname !== 'slack.com' && parsed.origin === api.origin;
}

/** A report whose charts Slack refuses is sent again without them (logged once a process). */
const refused = (logger: Logger) => ({ logger, kind: 'report' });

/** A direct message in place of a response URL. */
function respondByDm(client: webApi.WebClient, userId: string): RespondFn {
  return (async (message: { text?: string; blocks?: unknown[] }) => {
    await client.chat.postMessage({
      channel: userId,
      text: message.text ?? '',
      ...(message.blocks ? { blocks: message.blocks } : {}),
    } as never);
  }) as unknown as RespondFn;
}

/**
 * The one message that stands for a report from "queued" to the report itself: posted in the
 * channel and edited in place, or, without access to the channel, answered privately with a
 * couple of edits at most. Edits go out one after another, in order.
 */
export class ReportMessage {
  readonly #client: webApi.WebClient;
  readonly #respond: RespondFn;
  readonly #log: Logger;
  readonly #target: Target;
  /** The same place, for whichever replica finishes the report. */
  readonly where: MessageTarget;
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(client: webApi.WebClient, respond: RespondFn, log: Logger, target: Target, where: MessageTarget) {
    this.#client = client;
    this.#respond = respond;
    this.#log = log;
    this.#target = target;
    this.where = where;
  }

  /** The message another replica (or an earlier life of this one) opened. */
  static resume(client: webApi.WebClient, where: MessageTarget, log: Logger): ReportMessage {
    if (where.kind === 'channel') {
      // A channel message is edited in place; there is no private answer to give.
      const none = (() => Promise.reject(new Error('no private answer for a channel message'))) as unknown as RespondFn;
      return new ReportMessage(client, none, log, where, where);
    }
    // A stored response URL is used only if it is Slack's: the store is not trusted to send the
    // report (figures and all) anywhere else. Otherwise the person gets it by DM.
    const hook =
      where.responseUrl && isSlackHook(where.responseUrl, client.slackApiUrl) ? where.responseUrl : undefined;
    if (where.responseUrl && !hook) log.warn("A stored response URL is not Slack's: the report goes by DM instead");
    const respond = hook ? respondVia(hook) : respondByDm(client, where.userId);
    return new ReportMessage(client, respond, log, { kind: 'private', updates: 0 }, where);
  }

  /**
   * Posts the first version in the channel, or privately when the bot may not post there or the
   * channel is shared with another organization (`keepPrivate`).
   */
  static async open(
    slack: {
      client: webApi.WebClient;
      respond: RespondFn;
      metrics?: Metrics | undefined;
      userId: string;
      responseUrl?: string | undefined;
      keepPrivate?: SharingDoubt | undefined;
      postInChannel?: { once: string; owner: string } | undefined;
    },
    channelId: string,
    first: SlackMessage,
    log: Logger,
  ): Promise<ReportMessage> {
    if (slack.keepPrivate || slack.postInChannel) {
      await respondPrivately(slack.respond, first, log);
      const where: MessageTarget = {
        kind: 'private',
        userId: slack.userId,
        responseUrl: slack.responseUrl,
        sharedChannel: slack.keepPrivate,
        postInChannel: slack.postInChannel && { channel: channelId, ...slack.postInChannel },
      };
      return new ReportMessage(slack.client, slack.respond, log, { kind: 'private', updates: 0 }, where);
    }
    try {
      const posted = await slack.client.chat.postMessage({
        channel: channelId,
        text: first.text,
        blocks: first.blocks,
      });
      const target: Target = { kind: 'channel', channel: posted.channel ?? channelId, ts: posted.ts as string };
      return new ReportMessage(slack.client, slack.respond, log, target, target);
    } catch (error) {
      countSlackError(slack.metrics, 'chat.postMessage', error);
      log.info('Posting the report in the channel failed; answering privately', { slackError: slackErrorCode(error) });
      await respondPrivately(slack.respond, first, log);
      const where: MessageTarget = { kind: 'private', userId: slack.userId, responseUrl: slack.responseUrl };
      return new ReportMessage(slack.client, slack.respond, log, { kind: 'private', updates: 0 }, where);
    }
  }

  /** Replaces the message; a progress update (`final` false) may be skipped on the private path. */
  show(message: SlackMessage, final: boolean): Promise<unknown> {
    const target = this.#target;
    this.#chain = this.#chain
      .then(async () => {
        if (target.kind === 'channel') {
          await updateCounted(
            this.#client,
            undefined,
            { channel: target.channel, ts: target.ts, message },
            refused(this.#log),
          );
        } else if (final || target.updates < MAX_RESPOND_UPDATES) {
          target.updates += 1;
          // A response URL answers a refused block with a 4xx and no reason: a report with a chart
          // that fails is sent once more without its charts and tables.
          const answered = await respondPrivately(this.#respond, message, this.#log, { replace_original: true });
          const plain = answered ? undefined : withoutRichBlocks(message);
          if (plain) await respondPrivately(this.#respond, plain, this.#log, { replace_original: true });
        }
      })
      .catch((error: unknown) => this.#log.warn('Could not update the report message', { error }));
    return this.#chain;
  }

  /** Tells `userId` alone: an ephemeral message in the channel message's channel, else by DM. */
  async whisper(userId: string, message: SlackMessage): Promise<void> {
    const target = this.#target;
    if (target.kind === 'private') return void (await this.show(message, true));
    try {
      await this.#client.chat.postEphemeral({ channel: target.channel, user: userId, ...message });
    } catch (error) {
      this.#log.info('Could not answer privately in the channel; by DM instead', { slackError: slackErrorCode(error) });
      await this.#client.chat
        .postMessage({ channel: userId, ...message })
        .catch((dmError: unknown) =>
          this.#log.warn('Could not tell a person why a report is held', { error: dmError }),
        );
    }
  }

  /** Posts the report in a channel (Post in channel), apart from this message; its ts; throws what Slack said. */
  async postIn(channel: string, message: SlackMessage): Promise<string | undefined> {
    return postCounted(this.#client, undefined, { channel, message }, refused(this.#log));
  }

  /** Attaches the full report in the message's thread; says why when it could not. */
  async attach(file: { filename: string; title: string; content: string }): Promise<Mrkdwn | undefined> {
    const target = this.#target;
    if (target.kind === 'private' && this.where.kind === 'private' && this.where.sharedChannel) {
      return md`Posted in the channel, it comes with the full report as a file in its thread.`;
    }
    if (target.kind === 'private') {
      return md`Invite me to this channel (\`/invite @eventops\`) to get the full report as a file.`;
    }
    return this.upload(target.channel, target.ts, file);
  }

  /** The full report as a file in a message's thread; why not, when Slack refused it. */
  async upload(
    channel: string,
    ts: string,
    file: { filename: string; title: string; content: string },
  ): Promise<Mrkdwn | undefined> {
    try {
      await this.#client.filesUploadV2({ channel_id: channel, thread_ts: ts, ...file });
      return undefined;
    } catch (error) {
      const code = slackErrorCode(error);
      this.#log.warn('Attaching the report file failed', { slackError: code, error });
      return code === 'missing_scope' || code === 'not_allowed_token_type'
        ? md`The full report could not be attached: the app lacks the files:write scope.`
        : md`The full report could not be attached this time.`;
    }
  }
}

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
async function reportReader(transport: ReportTransport, where: MessageTarget, userId: string): Promise<Reader> {
  const { audience } = transport;
  return {
    room: where.kind === 'private' ? { kind: 'private' } : roomOf(await audience.of(where.channel)),
    person: await audience.person(userId),
  };
}

/**
 * A report's message as the use case sees it: each status rendered by the one renderer (errors in
 * the words of `userMessageFor`), the full JSON attached in the thread before the report shows.
 * The report and its sales go through the figures rule first; held back, the person is told why.
 */
function reportView(message: ReportMessage, ask: ReportAsk, transport: ReportTransport): ReportView<MessageTarget> {
  const { eventId } = ask;
  const { reportLimit, insights } = transport;
  return {
    where: message.where,
    async show(reported: ReportStatus) {
      const { where } = message;
      if (where.kind === 'private' && where.postInChannel && isFinal(reported))
        return postInChannel(message, where.postInChannel, ask, transport, reported);
      let status: ShownReportStatus;
      let sales: Awaited<ReturnType<typeof salesOf>> | undefined;
      if (reported.state === 'report') {
        const reader = await reportReader(transport, where, ask.userId);
        const gate = showFigures(reported.report, reader, transport.figuresPolicy);
        status =
          'shown' in gate ? { state: 'report', report: gate.shown } : { state: 'withheld', withheld: gate.withheld };
        if ('shown' in gate) sales = await salesOf(insights, eventId, ask.label, reported.report, reader, transport);
      } else status = reported;
      // Why is the asker's to read, not the channel's: the channel message only says it is not here.
      if (status.state === 'withheld' && where.kind === 'channel') {
        const why = reportProgressMessage(status, ask.label, reportLimit, { eventId, describeError: userMessageFor });
        await message.whisper(ask.userId, why);
        return message.show(
          plainMessage(md`The report for ${code(ask.label, 150)} is not shown in this channel.`),
          true,
        );
      }
      const attachmentNote =
        status.state === 'report'
          ? await message.attach({
              filename: `report-${eventId}.json`,
              // Titled as people know the event: its name (its id is in the file and the report).
              title: `Report: ${ask.label}`.slice(0, 250),
              content: JSON.stringify(status.report, null, 2),
            })
          : undefined;
      const rendered = reportProgressMessage(status, ask.label, reportLimit, {
        eventId,
        describeError: userMessageFor,
        attachmentNote,
      });
      const offer =
        status.state === 'report' && where.kind === 'private' && where.sharedChannel
          ? postInChannelBlocks({ eventId, label: ask.label, why: where.sharedChannel })
          : [];
      const blocks = [...rendered.blocks, ...(sales?.blocks ?? []), ...offer].slice(0, LIMITS.messageBlocks);
      const text = sales?.text ? shorten(md`${rendered.text}. ${sales.text}`, LIMITS.fallbackText) : rendered.text;
      return message.show({ text, blocks }, isFinal(reported));
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
  transport: ReportTransport,
  reported: ReportStatus,
): Promise<unknown> {
  const about = { eventId: ask.eventId, describeError: userMessageFor };
  let posted = false;
  try {
    if (reported.state !== 'report') {
      return await message.show(reportProgressMessage(reported, ask.label, transport.reportLimit, about), true);
    }
    const reader = await conversationReader(transport.audience, post.channel, ask.userId, { chosenAnyway: true });
    const gate = showFigures(reported.report, reader, transport.figuresPolicy);
    if ('withheld' in gate) {
      const status = { state: 'withheld', withheld: gate.withheld } as const;
      return await message.show(reportProgressMessage(status, ask.label, transport.reportLimit, about), true);
    }
    const rendered = reportProgressMessage(
      { state: 'report', report: gate.shown },
      ask.label,
      transport.reportLimit,
      about,
    );
    const sales = await salesOf(transport.insights, ask.eventId, ask.label, reported.report, reader, transport);
    const blocks = [...rendered.blocks, ...(sales?.blocks ?? [])].slice(0, LIMITS.messageBlocks);
    const text = sales?.text ? shorten(md`${rendered.text}. ${sales.text}`, LIMITS.fallbackText) : rendered.text;
    let ts: string | undefined;
    try {
      ts = await message.postIn(post.channel, { text, blocks });
      posted = true;
    } catch (error) {
      countSlackError(transport.metrics, 'chat.postMessage', error);
      transport.logger.info('Could not post a report in the channel', { slackError: slackErrorCode(error) });
      return await message.show(
        plainMessage(
          md`The report could not be posted in the channel (${code(slackErrorCode(error) ?? 'error', 60)}). Invite me with \`/invite @eventops\`, then click Post in channel again.`,
        ),
        true,
      );
    }
    // As a report asked for in the channel comes: with the full report as a file in its thread.
    const unattached = ts
      ? await message.upload(post.channel, ts, {
          filename: `report-${ask.eventId}.json`,
          title: `Report: ${ask.label}`.slice(0, 250),
          content: JSON.stringify(gate.shown, null, 2),
        })
      : undefined;
    return await message.show(
      plainMessage(
        unattached
          ? md`:white_check_mark: Posted the report in the channel. ${unattached}`
          : md`:white_check_mark: Posted the report in the channel.`,
      ),
      true,
    );
  } finally {
    await transport.runs?.finish(post.once, post.owner, posted);
  }
}

/** A report's sales blocks; none when the history cannot be read (the report still shows). */
async function salesOf(
  insights: SalesInsights | undefined,
  eventId: string,
  label: string,
  report: EventReport,
  reader: Reader,
  transport: ReportTransport,
) {
  const insight = await insights?.of(eventId, report).catch(() => undefined);
  const gate = showFigures({ report, insight }, reader, transport.figuresPolicy);
  return 'shown' in gate ? reportSalesBlocks({ eventName: label, figures: gate.shown }) : undefined;
}

/** What the Slack side of reports is given. */
export interface ReportTransport {
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
}

/** Where a person asked for a report through Bolt (a command, a button, a modal). */
export interface SlackReportRequest extends ReportAsk {
  respond: RespondFn;
  client: webApi.WebClient;
  channelId: string;
  /** The request's response URL, so that another replica can still answer privately. */
  responseUrl?: string | undefined;
  /** The channel is shared with another organization (or Slack could not say): the report is answered privately. */
  keepPrivate?: SharingDoubt | undefined;
  /** Post in channel was clicked: the wait shows privately, the report is posted in the channel (the click's claim). */
  postInChannel?: { once: string; owner: string } | undefined;
}

/** The Slack side of one request: its message posted in the channel, or privately. */
export function reportSurface(transport: ReportTransport, request: SlackReportRequest): ReportSurface<MessageTarget> {
  const log = transport.logger.child({ command: 'report', eventId: request.eventId, channel: request.channelId });
  return {
    async open(first) {
      // A report's figures are shown only by `show`, after the figures rule: it never opens a message.
      const opening = reportProgressMessage(
        first.state === 'report' ? { state: 'fetching', position: 0, estimatedWaitMs: 0 } : first,
        request.label,
        transport.reportLimit,
        {
          eventId: request.eventId,
          describeError: userMessageFor,
        },
      );
      const message = await ReportMessage.open(
        { ...request, metrics: transport.metrics },
        request.channelId,
        opening,
        log,
      );
      return reportView(message, request, transport);
    },
    exclusive: lockWith(transport.exclusive),
  };
}

/** Messages opened on any replica, for the one that fetched the report. */
export function reportMessages(
  client: webApi.WebClient,
  transport: ReportTransport & { exclusive: Exclusive },
): ReportMessages<MessageTarget> {
  return {
    resume(delivery: ReportDelivery<MessageTarget>) {
      const log = transport.logger.child({ command: 'report', eventId: delivery.eventId });
      return reportView(ReportMessage.resume(client, delivery.where, log), delivery, transport);
    },
    exclusive: lockWith(transport.exclusive),
  };
}
