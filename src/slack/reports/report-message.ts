import type { RespondArguments, RespondFn, webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SlackMessage } from '../../render/block-kit.js';
import type { Mrkdwn } from '../../render/mrkdwn.js';
import { ATTACHMENT_NOTES } from '../../render/report-answer.js';
import {
  REPORT_STREAM_CLOSING,
  type ReportStreamChunk,
  reportStreamHandOff,
} from '../../render/report-stream-chunks.js';
import type { SharingDoubt } from '../../render/shared-channel-blocks.js';
import type { ReportStreams } from '../deps/report-streams.js';
import { postCounted, updateCounted } from '../replies/posted-messages.js';
import type { MessageTarget } from '../replies/report-target.js';
import { respondPrivately } from '../replies/respond-safely.js';
import { countSlackError, slackErrorCode } from '../replies/slack-errors.js';
import { withoutRichBlocks } from '../replies/without-rich-blocks.js';

/** response_url takes about 5 uses; progress through it is kept to a couple of edits. */
const MAX_RESPOND_UPDATES = 2;

type Target = Extract<MessageTarget, { kind: 'channel' }> | { kind: 'private'; updates: number };

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
  const send = async (message: string | RespondArguments) => {
    const text = typeof message === 'string' ? message : 'text' in message ? (message.text ?? '') : '';
    const blocks = typeof message !== 'string' && 'blocks' in message ? message.blocks : undefined;
    await client.chat.postMessage({ channel: userId, text, ...(blocks ? { blocks } : {}) });
  };
  // Bolt's `respond` resolves to the response URL's answer; a DM has none to give.
  return send as unknown as RespondFn;
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
  readonly #streams: ReportStreams | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  /** A streamed message's newest progress not yet appended: appends coalesce to the latest. */
  #pending: ReportStreamChunk[] | undefined;
  /** The reply that streams the wait, while it does: stopped in time, the notice is edited instead. */
  #reply: string | undefined;

  private constructor(
    client: webApi.WebClient,
    respond: RespondFn,
    log: Logger,
    target: Target,
    where: MessageTarget,
    streams?: ReportStreams,
  ) {
    this.#client = client;
    this.#respond = respond;
    this.#log = log;
    this.#target = target;
    this.where = where;
    this.#streams = streams;
    this.#reply = target.kind === 'channel' ? target.stream : undefined;
  }

  /** The message another replica (or an earlier life of this one) opened. */
  static resume(client: webApi.WebClient, where: MessageTarget, log: Logger, streams?: ReportStreams): ReportMessage {
    if (where.kind === 'channel') {
      // A channel message is edited in place; there is no private answer to give.
      const none = (() => Promise.reject(new Error('no private answer for a channel message'))) as unknown as RespondFn;
      return new ReportMessage(client, none, log, where, where, streams);
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
   * channel is shared with another organization (`keepPrivate`). In the channel it is the notice
   * `first`; with `stream`, the wait also streams in a reply under it where Slack lets it (its
   * first chunks), and the notice is edited once, to the report.
   */
  static async open(
    slack: {
      client: webApi.WebClient;
      respond: RespondFn;
      metrics?: Metrics | undefined;
      userId: string;
      /** The asker's team (Bolt's context.teamId, else its enterpriseId): whom a stream is addressed to. */
      teamId?: string | undefined;
      responseUrl?: string | undefined;
      keepPrivate?: SharingDoubt | undefined;
      postInChannel?: { once: string; owner: string } | undefined;
      /** `expectedMs`: how long the wait is expected to take (a longer one than a stream may live is not streamed). */
      stream?: { streams: ReportStreams; chunks: ReportStreamChunk[]; expectedMs?: number | undefined } | undefined;
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
    let posted: { channel?: string | undefined; ts?: string | undefined };
    try {
      posted = await slack.client.chat.postMessage({ channel: channelId, text: first.text, blocks: first.blocks });
    } catch (error) {
      countSlackError(slack.metrics, 'chat.postMessage', error);
      log.info('Posting the report in the channel failed; answering privately', { slackError: slackErrorCode(error) });
      await respondPrivately(slack.respond, first, log);
      const where: MessageTarget = { kind: 'private', userId: slack.userId, responseUrl: slack.responseUrl };
      return new ReportMessage(slack.client, slack.respond, log, { kind: 'private', updates: 0 }, where);
    }
    const notice = { channel: posted.channel ?? channelId, ts: posted.ts as string };
    // The wait streams as a reply under the notice (Slack streams only replies), where Slack lets it.
    const reply =
      slack.stream &&
      (await slack.stream.streams.start(
        slack.client,
        { channel: notice.channel, userId: slack.userId, teamId: slack.teamId, threadTs: notice.ts },
        slack.stream.chunks,
        slack.stream.expectedMs,
      ));
    const target: Target = { kind: 'channel', ...notice, ...(reply ? { stream: reply.ts } : {}) };
    return new ReportMessage(
      slack.client,
      slack.respond,
      log,
      target,
      target,
      reply ? slack.stream?.streams : undefined,
    );
  }

  /**
   * Replaces the message; a progress update (`final` false) may be skipped on the private path. A
   * streamed wait takes `chunks` too: progress is appended to the reply (coalesced to the newest
   * while an append is under way) and leaves the notice alone; the last edits the notice to
   * `message` and stops the reply. A reply kept as long as a stream may live is stopped at the next
   * progress, and the notice is edited for the rest of the wait.
   */
  show(message: SlackMessage, final: boolean, chunks?: ReportStreamChunk[]): Promise<unknown> {
    const target = this.#target;
    const streams = this.#streams;
    const reply = this.#reply;
    if (target.kind === 'channel' && reply && streams) {
      if (final || !streams.due(reply)) {
        return this.#stream(streams, { channel: target.channel, ts: target.ts }, reply, message, final, chunks ?? []);
      }
      this.#reply = undefined;
      this.#pending = undefined;
      this.#chain = this.#chain
        .then(() =>
          streams.stop(
            this.#client,
            { channel: target.channel, ts: reply },
            reportStreamHandOff(),
            REPORT_STREAM_CLOSING.handedOff,
          ),
        )
        .catch((error: unknown) => this.#log.warn('Could not stop a report stream', { error }));
    }
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

  #stream(
    streams: ReportStreams,
    notice: { channel: string; ts: string },
    stream: string,
    message: SlackMessage,
    final: boolean,
    chunks: ReportStreamChunk[],
  ): Promise<unknown> {
    const reply = { channel: notice.channel, ts: stream };
    if (!final) {
      const queued = this.#pending !== undefined;
      this.#pending = chunks;
      if (queued) return this.#chain;
    } else this.#pending = undefined;
    this.#chain = this.#chain
      .then(async () => {
        if (!final) {
          const newest = this.#pending;
          this.#pending = undefined;
          if (newest) await streams.append(this.#client, reply, newest);
          return;
        }
        // The reply is stopped whatever became of the edit (a notice deleted, a rate limit).
        try {
          await updateCounted(this.#client, undefined, { ...notice, message }, refused(this.#log));
        } finally {
          this.#reply = undefined;
          await streams.stop(this.#client, reply, chunks, REPORT_STREAM_CLOSING.ended);
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
      return ATTACHMENT_NOTES.sharedChannel;
    }
    if (target.kind === 'private') {
      return ATTACHMENT_NOTES.notInChannel;
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
        ? ATTACHMENT_NOTES.missingScope
        : ATTACHMENT_NOTES.failed;
    }
  }
}
