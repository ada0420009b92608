import type { webApi } from '@slack/bolt';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { Mrkdwn } from '../../render/mrkdwn.js';
import type { ReportStreamChunk } from '../../render/report-stream-chunks.js';
import { type Clock, sleepOn } from '../../time/clock.js';
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
 * Slack's answers about where or how a stream was started: that conversation streams no more in
 * this process at once, and its kind of conversation (by id prefix) once Slack has refused
 * `PLACE_REFUSALS_TO_TURN_OFF` starts there in a row (one refusal may be about one conversation).
 */
const PLACE_REFUSALS = new Set(['invalid_arguments', 'missing_argument', 'not_allowed', 'channel_type_not_supported']);
const PLACE_REFUSALS_TO_TURN_OFF = 3;

/** Slack's answers about what a call carried (its chunks, its length, a stream Slack closed): the operator hears of each. */
const ARGUMENT_ERRORS = new Set(['invalid_chunks', 'msg_too_long', 'message_not_in_streaming_state']);

/**
 * The kind of conversation a channel id names, by its prefix: what a place refusal is remembered
 * for. A `C` id is a public channel or a private one made since Slack's 2021 change; `G` an older
 * private channel or a group DM; `D` a DM.
 */
const conversationKind = (channel: string): string => {
  const prefix = channel.slice(0, 1);
  return prefix === 'C' || prefix === 'G' || prefix === 'D' ? prefix : 'other';
};
const KIND_WORDS: Record<string, string> = {
  C: 'conversations with C ids (public channels and newer private ones)',
  G: 'conversations with G ids (older private channels and group DMs)',
  D: 'DMs',
  other: 'other conversations',
};

/** Slack closes a stream about 5 minutes after it starts (node-slack-sdk #2702): later calls answer message_not_in_streaming_state. */
export const SLACK_STREAM_CLOSES_MS = 5 * 60_000;

/**
 * How long a report's stream is kept, at most: a wait expected to last longer is not streamed,
 * and a stream still open this long is stopped and the notice edited for the rest of the wait.
 */
export const STREAM_LIFETIME_MS = 4 * 60_000;

const MINUTE_MS = 60_000;

/**
 * The stream methods for every report of this process, kept within Slack's tiers: a stream starts
 * only while startStream has room this minute (else the report is the notice alone, edited), a
 * progress append over its tier is skipped (the message's next append says the newer place), and
 * a stop waits for room (a stop is owed for every start). A stream Slack has closed or whose stop
 * it refused is edited to plain words instead (chat.update on its ts, node-slack-sdk #2611), never
 * left as a message still "streaming".
 */
export class ReportStreams {
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #metrics: Metrics | undefined;
  readonly #tiers: Readonly<Record<StreamMethod, number>>;
  readonly #sent = new Map<StreamMethod, number[]>();
  /** What Slack refused, for good: the whole method (`*`), one kind of conversation (its prefix) or one conversation (its id). */
  readonly #refused = new Map<string, string>();
  /** Place refusals in a row, by kind of conversation (a start that succeeds there clears them). */
  readonly #strikes = new Map<string, number>();
  /** When each of this process's streams started (its ts). */
  readonly #startedAt = new Map<string, number>();
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

  /** The bot's team, as Slack named it at start (`auth.test`): for a request that did not say its own. */
  addressTo(teamId: string): void {
    this.#team = Promise.resolve(teamId);
  }

  /** Why reports in `channel` no longer stream in this process (what Slack answered), if it said so. */
  refusedIn(channel: string): string | undefined {
    return this.#refused.get('*') ?? this.#refused.get(channel) ?? this.#refused.get(conversationKind(channel));
  }

  /**
   * How long ago a stream started: as this process started it, else (another replica's) as its ts
   * says, Slack's ts being the seconds since the epoch it was made at.
   */
  #age(ts: string): number {
    const started = this.#startedAt.get(ts) ?? Number(ts) * 1000;
    return Number.isFinite(started) ? this.#clock.now() - started : Number.POSITIVE_INFINITY;
  }

  /** Whether a stream has been kept as long as it may (`STREAM_LIFETIME_MS`): time to stop it. */
  due(ts: string): boolean {
    return this.#age(ts) >= STREAM_LIFETIME_MS;
  }

  #recent(method: StreamMethod): number[] {
    const now = this.#clock.now();
    const recent = (this.#sent.get(method) ?? []).filter((at) => now - at < MINUTE_MS);
    this.#sent.set(method, recent);
    return recent;
  }

  /** Takes one call of `method` from this minute's tier; false when it is spent. */
  #take(method: StreamMethod): boolean {
    const recent = this.#recent(method);
    if (recent.length >= this.#tiers[method]) return false;
    recent.push(this.#clock.now());
    return true;
  }

  /** Takes one call of `method` from its tier, waiting (on the clock) for room when this minute's is spent. */
  async #takeWhenRoom(method: StreamMethod): Promise<void> {
    while (!this.#take(method)) {
      const oldest = this.#recent(method)[0] ?? this.#clock.now();
      await sleepOn(this.#clock, Math.max(1, oldest + MINUTE_MS - this.#clock.now()));
    }
  }

  #hasRoom(method: StreamMethod): boolean {
    return this.#recent(method).length < this.#tiers[method];
  }

  /**
   * The team of a stream addressed to a person whose request did not say it: the bot's own.
   * Given at start (`addressTo`); asked once a process only if it was not.
   */
  #botTeam(client: webApi.WebClient): Promise<string | undefined> {
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
   * for the person who asked, of their team (`teamId`, as Bolt's sayStream addresses it: the
   * request's team, else its enterprise): its ts, or undefined when the report should be the
   * notice edited instead (streaming refused there, the tier spent, a wait expected to outlast a
   * stream's `STREAM_LIFETIME_MS`, Slack refused this one).
   */
  async start(
    client: webApi.WebClient,
    where: { channel: string; userId: string; teamId?: string | undefined; threadTs: string },
    chunks: ReportStreamChunk[],
    expectedMs = 0,
  ): Promise<{ channel: string; ts: string } | undefined> {
    if (this.refusedIn(where.channel) || expectedMs > STREAM_LIFETIME_MS) return undefined;
    // The stream is started only if its stop will have room too: a stop is owed for every start.
    if (!this.#hasRoom('chat.stopStream') || !this.#take('chat.startStream')) return undefined;
    const team = where.teamId ?? (await this.#botTeam(client));
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
      this.#strikes.delete(conversationKind(where.channel));
      if (!started.ts) return undefined;
      this.#startedAt.set(started.ts, this.#clock.now());
      return { channel: started.channel ?? where.channel, ts: started.ts };
    } catch (error) {
      this.#refusal('chat.startStream', where.channel, slackErrorCode(error));
      return undefined;
    }
  }

  /** Remembers a refusal for what it was about (the method, the conversation, its kind), with a warning that says so. */
  #refusal(method: StreamMethod, channel: string, code: string | undefined): void {
    if (!code || (!METHOD_REFUSALS.has(code) && !PLACE_REFUSALS.has(code))) {
      this.#trouble(method, code);
      return;
    }
    const kind = conversationKind(channel);
    const strikes = METHOD_REFUSALS.has(code) ? 0 : (this.#strikes.get(kind) ?? 0) + 1;
    this.#strikes.set(kind, strikes);
    const scope = METHOD_REFUSALS.has(code) ? '*' : strikes >= PLACE_REFUSALS_TO_TURN_OFF ? kind : channel;
    if (this.#refused.has(scope)) return;
    this.#refused.set(scope, code);
    const where =
      scope === '*'
        ? 'anywhere'
        : scope === kind
          ? `in ${KIND_WORDS[kind]} (${strikes} refused in a row)`
          : `in ${channel}`;
    this.#log.warn(
      `Slack refused ${method} (${code}): reports no longer stream ${where} in this process; they are notices edited in place`,
      { method, slackError: code, channel },
    );
  }

  /** A call Slack answered with an error that costs one report its stream (or one step): a warning for what a call carried, else a note. */
  #trouble(method: StreamMethod, code: string | undefined): void {
    const fields = { method, slackError: code };
    if (code && ARGUMENT_ERRORS.has(code)) this.#log.warn(`Slack refused ${method} (${code})`, fields);
    else this.#log.info('A report stream call failed; the report is in its notice', fields);
  }

  /** Appends a step's progress; skipped when the tier is spent (the next append says the newer place). */
  async append(client: webApi.WebClient, at: { channel: string; ts: string }, chunks: ReportStreamChunk[]) {
    if (!this.#take('chat.appendStream')) return;
    await counted(
      this.#metrics,
      'chat.appendStream',
      client.chat.appendStream({ channel: at.channel, ts: at.ts, chunks }),
    ).catch((error: unknown) => this.#trouble('chat.appendStream', slackErrorCode(error)));
  }

  /**
   * Stops the stream with its last chunks, waiting for room in stopStream's tier; true when it
   * stopped. A stream Slack has closed already (past `SLACK_STREAM_CLOSES_MS`) or whose stop Slack
   * refused is edited to `text` instead, so that it shows words, not a stream that never ends.
   */
  async stop(
    client: webApi.WebClient,
    at: { channel: string; ts: string },
    chunks: ReportStreamChunk[],
    text: Mrkdwn,
  ): Promise<boolean> {
    if (this.#age(at.ts) < SLACK_STREAM_CLOSES_MS) {
      await this.#takeWhenRoom('chat.stopStream');
      try {
        await counted(
          this.#metrics,
          'chat.stopStream',
          client.chat.stopStream({ channel: at.channel, ts: at.ts, chunks }),
        );
        this.#startedAt.delete(at.ts);
        return true;
      } catch (error) {
        this.#trouble('chat.stopStream', slackErrorCode(error));
      }
    }
    this.#startedAt.delete(at.ts);
    await counted(this.#metrics, 'chat.update', client.chat.update({ channel: at.channel, ts: at.ts, text })).catch(
      (error: unknown) =>
        this.#log.warn('Could not end a report stream Slack closed', {
          method: 'chat.update',
          slackError: slackErrorCode(error),
        }),
    );
    return false;
  }
}
