import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../src/read-body.js';
import {
  conversationHistory,
  conversationReplies,
  type HistoryMessage,
} from '../../src/sandbox/conversation-history.js';
import { streamStartRefusal } from '../../src/sandbox/sandbox-streams.js';
import { parseWebApiArgs } from '../../src/sandbox/web-api-args.js';
import { waitFor } from './wait-for.js';

/** One call the bot made to the (fake) Slack Web API, or one post to a response_url. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  /** The token the call carried (its Authorization header, else its `token` argument). */
  token?: string | undefined;
  /** What Slack answered, when it was `{ ok: false, error }`. */
  error?: string | undefined;
}

export interface FakeSlack {
  /** Base of the Web API: pass as SLACK_API_URL. */
  apiUrl: string;
  /** A fresh response_url for one command or interaction. */
  responseUrl(id?: string): string;
  calls: SlackCall[];
  /** Posts to response_urls, in order. */
  responses: SlackCall[];
  /** Answers the next call of `method` with `{ ok: false, error }`. */
  failNext(method: string, error: string, times?: number): void;
  /** Answers the next call of `method` with `answer` as it is (an `ok` with a warning, say). */
  answerNext(method: string, answer: Record<string, unknown>): void;
  /** The `ts` of each message `chat.postMessage` created, in order. */
  postedTs: string[];
  /** Members of user groups, for `usergroups.users.list`. */
  groups: Map<string, string[]>;
  /**
   * What `conversations.info` answers for a conversation, over the default: a channel of the
   * organization alone that the bot is in (a `D...` id: the bot's DM with a person of its team).
   */
  conversations: Map<string, Record<string, unknown>>;
  /** Members of a conversation, for `conversations.members`. */
  members: Map<string, string[]>;
  /** A person's team for `users.info` (default: the bot's own, `T0001`). */
  userTeams: Map<string, string>;
  /** More of what `users.info` says of a person (`is_restricted`, `is_ultra_restricted`, `is_stranger`). */
  people: Map<string, Record<string, unknown>>;
  /**
   * Block types this Slack refuses (`invalid_blocks` from the Web API, 400 from a response URL),
   * as a workspace or client that does not show charts and tables yet would.
   */
  refusedBlockTypes: Set<string>;
  /** Answers the next call of `method` with HTTP 429 and this Retry-After (seconds). */
  rateLimitNext(method: string, retryAfterSeconds: number): void;
  /**
   * Methods this Slack does not have (`unknown_method`). At first the three stream methods, as a
   * workspace without streaming (the tests written before it see today's notice-and-edit);
   * `allowStreaming()` takes them out.
   */
  refusedMethods: Set<string>;
  /** Accepts `chat.startStream`, `chat.appendStream` and `chat.stopStream`. */
  allowStreaming(): void;
  /** Each streamed message by its ts: the chunks in the order they came, and the blocks it stopped with. */
  streams: Map<
    string,
    {
      channel: string;
      threadTs: string;
      chunks: Record<string, unknown>[];
      blocks?: unknown[];
      stopped: boolean;
      /** When it started, on the fake's clock: Slack closes a stream 5 minutes on (node-slack-sdk #2702). */
      startedAt: number;
    }
  >;
  /**
   * Holds the answer to the next call of `method` (answered as things stood when it came) until
   * `release`: a test forces what happens meanwhile (a race), never waits on timing.
   * `'response_url'` holds the next post to any response_url.
   */
  holdNext(method: string): { reached: Promise<void>; release(): void };
  /** What `apps.connections.open` answers (Socket Mode). */
  setSocketUrl(url: string): void;
  /** The first thing `find` gives (not undefined, null or false), looking every 10 ms; fails after `timeoutMs` (10 s). */
  waitFor<T>(find: () => T | undefined, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const isObject = (value: unknown) => typeof value === 'object' && value !== null;

/** Slack closes a stream about 5 minutes after it starts (node-slack-sdk #2702). */
const STREAM_CLOSES_MS = 5 * 60_000;

/**
 * A stand-in for Slack's Web API and response_urls on loopback (Slack itself cannot run here).
 * `clock`: the time a stream's age is measured on (a test's moved clock; default the wall clock).
 */
export async function startFakeSlack(options: { clock?: { now(): number } } = {}): Promise<FakeSlack> {
  const clock = options.clock ?? { now: () => Date.now() };
  const calls: SlackCall[] = [];
  const responses: SlackCall[] = [];
  const failures = new Map<string, { error: string; times: number }>();
  const answers = new Map<string, Record<string, unknown>>();
  const groups = new Map<string, string[]>();
  const conversations = new Map<string, Record<string, unknown>>();
  const members = new Map<string, string[]>();
  const people = new Map<string, Record<string, unknown>>();
  const refusedBlockTypes = new Set<string>();
  const refusesBlocks = (args: Record<string, unknown>) => {
    const blocks = typeof args.blocks === 'string' ? (JSON.parse(args.blocks) as unknown) : args.blocks;
    return (
      Array.isArray(blocks) && blocks.some((block) => refusedBlockTypes.has((block as { type?: string }).type ?? ''))
    );
  };
  const userTeams = new Map<string, string>();
  const STREAM_METHODS = ['chat.startStream', 'chat.appendStream', 'chat.stopStream'];
  const refusedMethods = new Set<string>(STREAM_METHODS);
  const streams: FakeSlack['streams'] = new Map();
  const chunksOf = (args: Record<string, unknown>) =>
    (typeof args.chunks === 'string' ? JSON.parse(args.chunks) : (args.chunks ?? [])) as Record<string, unknown>[];
  const limited = new Map<string, number>();
  /** Each person's published home view's hash (views.publish). */
  const homeHashes = new Map<string, string>();
  const holds = new Map<string, { reached: () => void; released: Promise<void> }>();
  const history = new Map<string, HistoryMessage[]>();
  // A post to a user id lands in their DM; `conversations.open` names that DM `D` + the id's rest.
  const dmUsers = new Map<string, string>();
  const conversation = (channel: unknown) => dmUsers.get(String(channel)) ?? String(channel);
  // Message timestamps follow the real clock, as Slack's do (history is read by time).
  let ts = Math.floor(Date.now() / 1000);
  const postedTs: string[] = [];
  let url = '';
  let socketUrl: string | undefined;

  const answer = (method: string, args: Record<string, unknown>): Record<string, unknown> => {
    const given = answers.get(method);
    if (given) {
      answers.delete(method);
      return given;
    }
    const failure = failures.get(method);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      return { ok: false, error: failure.error };
    }
    if (refusesBlocks(args)) return { ok: false, error: 'invalid_blocks' };
    if (refusedMethods.has(method)) return { ok: false, error: 'unknown_method' };
    switch (method) {
      case 'chat.startStream': {
        // As Slack takes it: a reply (thread_ts), addressed to a person of a team outside a DM.
        const refusal = streamStartRefusal(args);
        if (refusal) return { ok: false, error: refusal };
        ts += 1;
        const started = `${ts}.000100`;
        streams.set(started, {
          channel: String(args.channel),
          threadTs: String(args.thread_ts),
          chunks: chunksOf(args),
          stopped: false,
          startedAt: clock.now(),
        });
        return { ok: true, channel: args.channel, ts: started };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const stream = streams.get(String(args.ts));
        if (!stream || stream.stopped || clock.now() - stream.startedAt >= STREAM_CLOSES_MS)
          return { ok: false, error: 'message_not_in_streaming_state' };
        stream.chunks.push(...chunksOf(args));
        if (method === 'chat.stopStream') {
          stream.stopped = true;
          stream.blocks = (typeof args.blocks === 'string' ? JSON.parse(args.blocks) : args.blocks) as unknown[];
        }
        return { ok: true, channel: args.channel, ts: args.ts };
      }
      case 'apps.connections.open':
        return socketUrl ? { ok: true, url: socketUrl } : { ok: false, error: 'invalid_auth' };
      case 'auth.test':
        return {
          ok: true,
          user_id: 'UBOT',
          bot_id: 'BBOT',
          app_id: 'A0001',
          team_id: 'T0001',
          user: 'eventops',
          team: 'Test',
        };
      case 'bots.info':
        return { ok: true, bot: { id: args.bot, app_id: 'A0001', user_id: 'UBOT', deleted: false } };
      case 'chat.postMessage': {
        ts += 1;
        const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
        const posted: HistoryMessage = {
          ts: `${ts}.000100`,
          text: args.text,
          metadata: args.metadata,
          threadTs,
          broadcast: args.reply_broadcast === true || args.reply_broadcast === 'true',
        };
        history.set(conversation(args.channel), [posted, ...(history.get(conversation(args.channel)) ?? [])]);
        postedTs.push(posted.ts);
        return { ok: true, channel: args.channel, ts: posted.ts, message: { text: args.text } };
      }
      case 'conversations.history':
        return conversationHistory(history.get(conversation(args.channel)) ?? [], args);
      case 'conversations.replies':
        return conversationReplies(history.get(conversation(args.channel)) ?? [], args);
      case 'conversations.open': {
        const user = String(args.users);
        const id = `D${user.slice(1)}`;
        dmUsers.set(id, user);
        return { ok: true, channel: { id } };
      }
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: `${ts}.000200` };
      case 'chat.unfurl':
        // Work Object cards (`metadata.entities`) or classic ones (`unfurls`), as Slack takes them.
        return args.unfurls !== undefined || isObject(args.metadata)
          ? { ok: true }
          : { ok: false, error: 'invalid_unfurls' };
      case 'entity.presentDetails':
        // A flexpane for the person whose click sent the trigger: its metadata, or an error to show.
        return typeof args.trigger_id === 'string' && (isObject(args.metadata) || isObject(args.error))
          ? { ok: true }
          : { ok: false, error: 'invalid_arguments' };
      case 'views.open':
      case 'views.publish': {
        // As Slack does: each published home view has a new hash, and a publish that names a hash
        // other than the one of the view the person has now is refused.
        const user = String(args.user_id);
        if (typeof args.hash === 'string' && args.hash !== homeHashes.get(user))
          return { ok: false, error: 'hash_conflict' };
        const hash = `${Date.now()}.${++ts}`;
        homeHashes.set(user, hash);
        return { ok: true, view: { id: 'V0001', hash } };
      }
      case 'views.update':
        // A new hash at each update, as Slack gives: the next update names it.
        return { ok: true, view: { id: args.view_id, hash: `${Date.now()}.${++ts}` } };
      case 'users.info':
        return {
          ok: true,
          user: {
            id: args.user,
            team_id: userTeams.get(String(args.user)) ?? 'T0001',
            tz: 'America/New_York',
            tz_offset: -18_000,
            ...people.get(String(args.user)),
          },
        };
      case 'conversations.info': {
        const id = String(args.channel);
        const base = id.startsWith('D')
          ? { id, is_im: true, user: dmUsers.get(id) ?? `U${id.slice(1)}` }
          : { id, is_channel: true, is_member: true, is_shared: false, is_ext_shared: false, is_org_shared: false };
        return { ok: true, channel: { ...base, ...conversations.get(id) } };
      }
      case 'conversations.members':
        return { ok: true, members: members.get(String(args.channel)) ?? [], response_metadata: { next_cursor: '' } };
      case 'usergroups.users.list':
        return { ok: true, users: groups.get(String(args.usergroup)) ?? [] };
      case 'files.getUploadURLExternal':
        return { ok: true, upload_url: `${url}/upload/F0001`, file_id: 'F0001' };
      case 'files.completeUploadExternal':
        return { ok: true, files: [{ id: 'F0001', title: 'report' }] };
      case 'functions.completeSuccess':
      case 'functions.completeError':
        return { ok: true };
      case 'functions.distributions.permissions.set':
        // A step is named by its callback id and its app's id (docs.slack.dev), or by its own id.
        if (typeof args.function_id !== 'string' && typeof args.function_app_id !== 'string')
          return { ok: false, error: 'invalid_arguments' };
        return { ok: true, permission_type: args.permission_type };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req, 4 * 1024 * 1024);
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (path.startsWith('/api/')) {
        const method = path.slice('/api/'.length);
        const args = parseWebApiArgs(body, req.headers['content-type']);
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const token = bearer ?? (typeof args.token === 'string' ? args.token : undefined);
        const call: SlackCall = { method, args, at: Date.now(), token };
        calls.push(call);
        const retryAfter = limited.get(method);
        if (retryAfter !== undefined) {
          limited.delete(method);
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfter) });
          res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
          return;
        }
        const answered = answer(method, args);
        if (answered.ok === false) call.error = String(answered.error);
        const hold = holds.get(method);
        if (hold) {
          holds.delete(method);
          hold.reached();
          await hold.released;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answered));
      } else if (path.startsWith('/response/')) {
        const args = JSON.parse(body) as Record<string, unknown>;
        responses.push({ method: path, args, at: Date.now() });
        const hold = holds.get('response_url');
        if (hold) {
          holds.delete('response_url');
          hold.reached();
          await hold.released;
        }
        if (refusesBlocks(args)) {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end('invalid_blocks');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      } else if (path.startsWith('/upload/')) {
        calls.push({ method: 'upload', args: { path, bytes: body.length, body }, at: Date.now() });
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`OK - ${body.length}`);
      } else {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let counter = 0;

  return {
    apiUrl: `${url}/api/`,
    responseUrl: (id) => `${url}/response/${id ?? ++counter}`,
    calls,
    responses,
    postedTs,
    groups,
    conversations,
    members,
    userTeams,
    people,
    refusedBlockTypes,
    refusedMethods,
    allowStreaming: () => {
      for (const method of STREAM_METHODS) refusedMethods.delete(method);
    },
    streams,
    rateLimitNext: (method, seconds) => limited.set(method, seconds),
    holdNext: (method) => {
      let reached = () => {};
      let release = () => {};
      const reachedPromise = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.set(method, { reached, released });
      return { reached: reachedPromise, release };
    },
    setSocketUrl: (value) => {
      socketUrl = value;
    },
    failNext: (method, error, times = 1) => failures.set(method, { error, times }),
    answerNext: (method, answer) => answers.set(method, answer),
    waitFor: (find, timeoutMs = 10_000) =>
      waitFor(find, { what: 'the condition given to slack.waitFor', timeoutMs, intervalMs: 10 }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
