import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { ReportStreamChunk } from '../../render/report-stream-chunks.js';
import type { Clock } from '../../time/clock.js';
import { counted } from '../replies/posted-messages.js';
import { slackErrorCode } from '../replies/slack-errors.js';

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
 */
const METHOD_REFUSALS = new Set([
  'unknown_method',
  'not_allowed_token_type',
  'missing_scope',
  'method_deprecated',
  'feature_not_enabled',
  'not_implemented',
]);

/**
 * Slack's answers about where or how a stream was started: every stream in that kind of
 * conversation has the same shape (a reply under its notice, addressed to the asker), so a Slack
 * that refuses it once there refuses it every time there; other kinds still stream.
 */
const PLACE_REFUSALS = new Set(['invalid_arguments', 'missing_argument', 'not_allowed', 'channel_type_not_supported']);

/**
 * The kind of conversation a channel id names, by its prefix (C a channel, G a private channel or
 * group DM, D a DM): what a place refusal is remembered for.
 */
const conversationKind = (channel: string): string => {
  const prefix = channel.slice(0, 1);
  return prefix === 'C' || prefix === 'G' || prefix === 'D' ? prefix : 'other';
};
const KIND_WORDS: Record<string, string> = {
  C: 'channels',
  G: 'private channels and group DMs',
  D: 'DMs',
  other: 'other conversations',
};

const MINUTE_MS = 60_000;

/**
 * The stream methods for every report of this process, kept within Slack's tiers: a stream starts
 * only while startStream has room this minute (else the report is the notice alone, edited), a
 * progress append over its tier is skipped (the message's next append says the newer place), and
 * a stop over its tier leaves the reply's plan as it was (the report is in the notice either way).
 */
export class ReportStreams {
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #metrics: Metrics | undefined;
  readonly #tiers: Readonly<Record<StreamMethod, number>>;
  readonly #sent = new Map<StreamMethod, number[]>();
  /** What Slack refused, for good: the whole method (`*`) or one kind of conversation (its prefix), and its error. */
  readonly #refused = new Map<string, string>();
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

  /** Why reports in `channel` no longer stream in this process (what Slack answered), if it said so. */
  refusedIn(channel: string): string | undefined {
    return this.#refused.get('*') ?? this.#refused.get(conversationKind(channel));
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
   * Starts a report's stream as a reply under its notice (`threadTs`: Slack streams only replies)
   * for the person who asked: its ts, or undefined when the report should be the notice edited
   * instead (streaming refused there, the tier spent, Slack refused this one).
   */
  async start(
    client: webApi.WebClient,
    where: { channel: string; userId: string; threadTs: string },
    chunks: ReportStreamChunk[],
  ): Promise<{ channel: string; ts: string } | undefined> {
    if (this.refusedIn(where.channel)) return undefined;
    // The stream is started only if its stop will have room too: a stop is owed for every start.
    if (!this.#hasRoom('chat.stopStream') || !this.#take('chat.startStream')) return undefined;
    const team = await this.#teamOf(client);
    if (!team) return undefined;
    try {
      const started = await counted(
        this.#metrics,
        'chat.startStream',
        client.chat.startStream({
          channel: where.channel,
          thread_ts: where.threadTs,
          recipient_user_id: where.userId,
          recipient_team_id: team,
          task_display_mode: 'plan',
          chunks,
        }),
      );
      return started.ts ? { channel: started.channel ?? where.channel, ts: started.ts } : undefined;
    } catch (error) {
      this.#refusal('chat.startStream', where.channel, slackErrorCode(error));
      return undefined;
    }
  }

  /** Remembers a refusal for what it was about (the method, or the kind of conversation), with a warning that says so. */
  #refusal(method: StreamMethod, channel: string, code: string | undefined): void {
    const scope =
      code && METHOD_REFUSALS.has(code)
        ? '*'
        : code && PLACE_REFUSALS.has(code)
          ? conversationKind(channel)
          : undefined;
    if (!scope || !code) {
      this.#log.info('Could not stream a report; it is a notice edited in place', { method, slackError: code });
      return;
    }
    if (this.#refused.has(scope)) return;
    this.#refused.set(scope, code);
    const where = scope === '*' ? 'anywhere' : `in ${KIND_WORDS[scope]}`;
    this.#log.warn(
      `Slack refused ${method} (${code}): reports no longer stream ${where} in this process; they are notices edited in place`,
      {
        method,
        slackError: code,
      },
    );
  }

  /** Appends a step's progress; skipped when the tier is spent (the next append says the newer place). */
  async append(client: webApi.WebClient, at: { channel: string; ts: string }, chunks: ReportStreamChunk[]) {
    if (!this.#take('chat.appendStream')) return;
    await counted(
      this.#metrics,
      'chat.appendStream',
      client.chat.appendStream({ channel: at.channel, ts: at.ts, chunks }),
    ).catch((error: unknown) => {
      this.#log.info('Could not append to a report stream', {
        method: 'chat.appendStream',
        slackError: slackErrorCode(error),
      });
    });
  }

  /**
   * Stops the stream with its last chunks (the report itself goes to the notice above it); false
   * when the tier is spent or Slack refused, and the reply keeps its plan as it last was.
   */
  async stop(client: webApi.WebClient, at: { channel: string; ts: string }, chunks: ReportStreamChunk[]) {
    if (!this.#take('chat.stopStream')) return false;
    try {
      await counted(
        this.#metrics,
        'chat.stopStream',
        client.chat.stopStream({ channel: at.channel, ts: at.ts, chunks }),
      );
      return true;
    } catch (error) {
      this.#log.info('Could not stop a report stream', {
        method: 'chat.stopStream',
        slackError: slackErrorCode(error),
      });
      return false;
    }
  }
}
