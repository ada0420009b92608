import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SlackMessage } from '../../render/block-kit.js';
import type { ReportStreamChunk } from '../../render/report-stream-chunks.js';
import type { Clock } from '../../time/clock.js';
import { counted } from '../replies/posted-messages.js';
import { slackErrorCode } from '../replies/slack-errors.js';
import { sendWithoutRichBlocksIfRefused } from '../replies/without-rich-blocks.js';

export type StreamMethod = 'chat.startStream' | 'chat.appendStream' | 'chat.stopStream';

/**
 * Slack's per-minute tiers for the stream methods, per app and workspace: appendStream is Tier 4,
 * stopStream Tier 2 (docs.slack.dev); startStream is taken as Tier 2 as well, the stricter guess.
 */
export const STREAM_TIERS: Readonly<Record<StreamMethod, number>> = {
  'chat.startStream': 20,
  'chat.appendStream': 100,
  'chat.stopStream': 20,
};

/**
 * Slack's answers that mean this app or workspace cannot stream at all (an older Slack, a method
 * not granted): no stream is tried again by this process, every report is a notice edited in place.
 * The arguments' errors are here too: every stream is started with the same shape (top level in
 * the channel, no thread_ts), so a Slack that refuses it once refuses it every time.
 */
const UNAVAILABLE = new Set([
  'invalid_arguments',
  'missing_argument',
  'unknown_method',
  'not_allowed',
  'not_allowed_token_type',
  'missing_scope',
  'method_deprecated',
  'feature_not_enabled',
  'not_implemented',
]);

const MINUTE_MS = 60_000;

/**
 * The stream methods for every report of this process, kept within Slack's tiers: a stream starts
 * only while startStream has room this minute (else the report is today's notice, edited), a
 * progress append over its tier is skipped (the message's next append says the newer place), and
 * a stop over its tier is left to `chat.update` on the same message.
 */
export class ReportStreams {
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #metrics: Metrics | undefined;
  readonly #tiers: Readonly<Record<StreamMethod, number>>;
  readonly #sent = new Map<StreamMethod, number[]>();
  #unavailable: string | undefined;
  #team: Promise<string | undefined> | undefined;

  constructor(options: {
    clock: Clock;
    logger: Logger;
    metrics?: Metrics | undefined;
    tiers?: Readonly<Record<StreamMethod, number>>;
  }) {
    this.#clock = options.clock;
    this.#log = options.logger;
    this.#metrics = options.metrics;
    this.#tiers = options.tiers ?? STREAM_TIERS;
  }

  /** The bot's team, as Slack named it at start (`auth.test`): streams need not ask for it. */
  addressTo(teamId: string): void {
    this.#team = Promise.resolve(teamId);
  }

  /** Why this process no longer streams (what Slack answered), if it said so. */
  get unavailable(): string | undefined {
    return this.#unavailable;
  }

  /** Takes one call of `method` from this minute's tier; false when it is spent. */
  #take(method: StreamMethod): boolean {
    const now = this.#clock.now();
    const recent = (this.#sent.get(method) ?? []).filter((at) => now - at < MINUTE_MS);
    if (recent.length >= this.#tiers[method]) {
      this.#sent.set(method, recent);
      return false;
    }
    recent.push(now);
    this.#sent.set(method, recent);
    return true;
  }

  #hasRoom(method: StreamMethod): boolean {
    const now = this.#clock.now();
    return (this.#sent.get(method) ?? []).filter((at) => now - at < MINUTE_MS).length < this.#tiers[method];
  }

  /**
   * The team a channel stream is addressed to: the bot's own (a person who asks for a report in a
   * channel is of its organization, or the figures rule has already answered them privately).
   * Given at start (`addressTo`); asked once a process only if it was not.
   */
  #teamOf(client: webApi.WebClient): Promise<string | undefined> {
    this.#team ??= client.auth.test().then(
      (answer) => answer.team_id,
      () => {
        this.#team = undefined;
        return undefined;
      },
    );
    return this.#team;
  }

  /**
   * Starts a report's stream in `channel` for the person who asked: its ts, or undefined when the
   * report should be today's notice instead (streaming unavailable, the tier spent, Slack refused).
   */
  async start(
    client: webApi.WebClient,
    where: { channel: string; userId: string },
    chunks: ReportStreamChunk[],
  ): Promise<{ channel: string; ts: string } | undefined> {
    if (this.#unavailable) return undefined;
    // The stream is started only if its stop will have room too: a stop is owed for every start.
    if (!this.#hasRoom('chat.stopStream') || !this.#take('chat.startStream')) return undefined;
    const team = await this.#teamOf(client);
    if (!team) return undefined;
    try {
      // Top level in the channel (no thread_ts): the report answers a command, not a message.
      const started = await counted(
        this.#metrics,
        'chat.startStream',
        client.chat.startStream({
          channel: where.channel,
          recipient_user_id: where.userId,
          recipient_team_id: team,
          task_display_mode: 'plan',
          chunks,
        } as unknown as webApi.ChatStartStreamArguments),
      );
      return started.ts ? { channel: started.channel ?? where.channel, ts: started.ts } : undefined;
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && UNAVAILABLE.has(code)) {
        this.#unavailable = code;
        this.#log.info('Slack refused to stream a report; reports are notices edited in place', { slackError: code });
      } else this.#log.info('Could not stream a report; it is a notice edited in place', { slackError: code });
      return undefined;
    }
  }

  /** Appends a step's progress; skipped when the tier is spent (the next append says the newer place). */
  async append(client: webApi.WebClient, at: { channel: string; ts: string }, chunks: ReportStreamChunk[]) {
    if (!this.#take('chat.appendStream')) return;
    await counted(
      this.#metrics,
      'chat.appendStream',
      client.chat.appendStream({
        channel: at.channel,
        ts: at.ts,
        chunks,
      } as unknown as webApi.ChatAppendStreamArguments),
    ).catch((error: unknown) => {
      this.#log.info('Could not append to a report stream', { slackError: slackErrorCode(error) });
    });
  }

  /**
   * Stops the stream with its last chunks and the report's blocks (without its charts if Slack
   * refuses them); false when the tier is spent or Slack refused, and the caller edits the message.
   */
  async stop(
    client: webApi.WebClient,
    at: { channel: string; ts: string },
    chunks: ReportStreamChunk[],
    message: SlackMessage,
  ): Promise<boolean> {
    if (!this.#take('chat.stopStream')) return false;
    try {
      await sendWithoutRichBlocksIfRefused(
        message,
        (sent) =>
          counted(
            this.#metrics,
            'chat.stopStream',
            client.chat.stopStream({
              channel: at.channel,
              ts: at.ts,
              chunks,
              blocks: sent.blocks,
            } as unknown as webApi.ChatStopStreamArguments),
          ),
        this.#log,
        'report',
      );
      return true;
    } catch (error) {
      this.#log.info('Could not stop a report stream; editing it instead', { slackError: slackErrorCode(error) });
      return false;
    }
  }
}
