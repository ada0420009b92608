import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { conversationHistory } from './conversation-history.js';
import { BotForwarder } from './forward-to-bot.js';
import { BOT_ID, EDITORS_GROUP, type SandboxMessage, SandboxState } from './sandbox-state.js';

export interface Sandbox {
  /** The page to open. */
  url: string;
  /** What the bot uses as SLACK_API_URL. */
  apiUrl: string;
  state: SandboxState;
  /** Where user actions go: the bot's POST /slack/events. Set once the bot listens. */
  connect(botUrl: string, signingSecret: string): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** Where a response_url's posts land: the person, the channel, and the message it belongs to. */
interface ResponseTarget {
  user: string;
  channel: string;
  messageTs?: string | undefined;
}

const PAGE = new URL('./page/', import.meta.url);
const CONTENT_TYPES: Record<string, string> = {
  '/': 'text/html; charset=utf-8',
  '/app.js': 'text/javascript; charset=utf-8',
  '/app.css': 'text/css; charset=utf-8',
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Web API arguments arrive as JSON or as a form whose JSON-looking values are JSON. */
function parseArgs(body: string, contentType: string | undefined): Json {
  if (contentType?.includes('application/json')) return body ? (JSON.parse(body) as Json) : {};
  const args: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    try {
      args[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    } catch {
      args[key] = value;
    }
  }
  return args;
}

/**
 * A local stand-in for Slack, so the real bot runs unchanged in a browser: it serves the Web API
 * methods the bot calls, the response_urls it answers through, and a page where a person types
 * `/events ...`, clicks buttons and fills modals. Every user action is forwarded to the bot
 * signed, exactly as Slack would send it.
 */
export async function startSandbox(options: { logger: Logger; port?: number }): Promise<Sandbox> {
  const { logger } = options;
  const state = new SandboxState();
  const responses = new Map<string, ResponseTarget>();
  const triggers = new Map<string, { user: string; channel: string | undefined }>();
  let bot: BotForwarder | undefined;
  let base = '';

  const responseUrl = (target: ResponseTarget) => {
    const id = state.nextId('R');
    responses.set(id, target);
    return `${base}/response/${id}`;
  };
  const triggerFor = (user: string, channel: string | undefined) => {
    const id = `${Date.now()}.${state.nextId('T')}`;
    triggers.set(id, { user, channel });
    return id;
  };
  const forwarder = () => {
    if (!bot) throw new Error('The bot is not connected yet');
    return bot;
  };

  /** A bot message in the channel `args.channel` names (a person's id means their DM). */
  function postFromBot(args: Json, extra: Partial<SandboxMessage>): SandboxMessage | undefined {
    const channel = state.channelFor(String(args.channel));
    if (!channel) return undefined;
    return state.post({
      ...extra,
      channel: channel.id,
      author: BOT_ID,
      text: String(args.text ?? ''),
      blocks: Array.isArray(args.blocks) ? args.blocks : [],
    });
  }

  /** The Web API methods the bot calls; anything else answers like Slack does. */
  function webApi(method: string, args: Json): Json {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          user_id: BOT_ID,
          bot_id: 'BEVENTOPS',
          team_id: 'TSANDBOX',
          user: 'eventops',
          team: 'Sandbox',
        };
      case 'chat.postMessage': {
        const message = postFromBot(args, {
          threadTs: typeof args.thread_ts === 'string' ? args.thread_ts : undefined,
          metadata: args.metadata,
        });
        return message
          ? { ok: true, channel: message.channel, ts: message.ts, message: { text: message.text } }
          : { ok: false, error: 'channel_not_found' };
      }
      case 'chat.update': {
        const message = state.find(String(args.channel), String(args.ts));
        if (!message) return { ok: false, error: 'message_not_found' };
        message.text = String(args.text ?? message.text);
        if (Array.isArray(args.blocks)) message.blocks = args.blocks;
        message.edited = true;
        state.touch();
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'chat.postEphemeral': {
        const message = postFromBot(args, { ephemeralFor: String(args.user) });
        return message ? { ok: true, message_ts: message.ts } : { ok: false, error: 'channel_not_found' };
      }
      case 'views.open': {
        const trigger = triggers.get(String(args.trigger_id));
        if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
        const id = state.nextId('V');
        state.views.set(id, { id, user: trigger.user, kind: 'modal', view: args.view as Json });
        state.touch();
        return { ok: true, view: { id } };
      }
      case 'views.update': {
        const view = state.views.get(String(args.view_id));
        if (!view) return { ok: false, error: 'not_found' };
        view.view = args.view as Json;
        state.touch();
        return { ok: true, view: { id: view.id } };
      }
      case 'views.publish': {
        const user = String(args.user_id);
        const id = `VHOME${user}`;
        state.views.set(id, { id, user, kind: 'home', view: args.view as Json });
        state.touch();
        return { ok: true, view: { id } };
      }
      case 'users.info': {
        const user = state.user(String(args.user));
        return user
          ? { ok: true, user: { id: user.id, name: user.name, tz: user.tz } }
          : { ok: false, error: 'user_not_found' };
      }
      case 'usergroups.users.list':
        return args.usergroup === EDITORS_GROUP
          ? { ok: true, users: state.users.filter((user) => user.editor).map((user) => user.id) }
          : { ok: false, error: 'no_such_subteam' };
      case 'conversations.history':
        return conversationHistory(
          state.messages.filter((message) => message.channel === args.channel && !message.ephemeralFor).reverse(),
          args,
        );
      case 'files.getUploadURLExternal': {
        const id = state.nextId('F');
        state.files.set(id, { id, name: String(args.filename ?? 'file'), title: '', content: '', pending: true });
        return { ok: true, upload_url: `${base}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal': {
        const listed = Array.isArray(args.files) ? (args.files as { id?: string; title?: string }[]) : [];
        const files = listed.flatMap((entry) => {
          const file = entry.id ? state.files.get(entry.id) : undefined;
          return file ? [{ id: file.id, name: file.name, title: entry.title ?? file.name, content: file.content }] : [];
        });
        const channel = state.channelFor(String(args.channel_id));
        if (channel) {
          state.post({
            channel: channel.id,
            author: BOT_ID,
            text: '',
            blocks: [],
            threadTs: typeof args.thread_ts === 'string' ? args.thread_ts : undefined,
            files,
          });
        }
        return { ok: true, files: files.map((file) => ({ id: file.id, title: file.title })) };
      }
      default:
        logger.warn('The bot called a Web API method the sandbox does not serve', { method });
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** A post to a response_url: a new private answer, or the original message replaced in place. */
  function respond(target: ResponseTarget, body: Json): void {
    const text = String(body.text ?? '');
    const blocks = Array.isArray(body.blocks) ? body.blocks : [];
    const original = target.messageTs ? state.find(target.channel, target.messageTs) : undefined;
    if (original && body.delete_original) {
      state.messages.splice(state.messages.indexOf(original), 1);
      state.touch();
    } else if (original && body.replace_original) {
      original.text = text;
      original.blocks = blocks;
      original.edited = true;
      state.touch();
    } else {
      state.post({
        channel: target.channel,
        author: BOT_ID,
        text,
        blocks,
        ephemeralFor: body.response_type === 'in_channel' ? undefined : target.user,
      });
    }
  }

  /** What the page does, turned into what Slack would send the bot. */
  async function ui(path: string, input: Json): Promise<unknown> {
    const user = state.user(String(input.user));
    if (!user) throw new Error('unknown user');
    const userField = { id: user.id, username: user.name, name: user.name, team_id: 'TSANDBOX' };
    const common = {
      team: { id: 'TSANDBOX', domain: 'sandbox' },
      api_app_id: 'ASANDBOX',
      token: 'sandbox',
      user: userField,
    };
    switch (path) {
      case '/ui/state':
        return state.visibleTo(user.id);
      case '/ui/command': {
        const channel = state.channelFor(String(input.channel));
        if (!channel) throw new Error('unknown channel');
        const text = String(input.text ?? '').replace(/^\/events\s*/, '');
        // The person's own line, as Slack shows the command typed.
        state.post({
          channel: channel.id,
          author: user.id,
          text: `/events ${text}`.trim(),
          blocks: [],
          ephemeralFor: user.id,
        });
        const result = await forwarder().form({
          token: 'sandbox',
          team_id: 'TSANDBOX',
          team_domain: 'sandbox',
          channel_id: channel.id,
          channel_name: channel.name,
          user_id: user.id,
          user_name: user.name,
          command: '/events',
          text,
          api_app_id: 'ASANDBOX',
          response_url: responseUrl({ user: user.id, channel: channel.id }),
          trigger_id: triggerFor(user.id, channel.id),
        });
        return { status: result.status };
      }
      case '/ui/action': {
        const action = input.action as Json;
        const view = typeof input.viewId === 'string' ? state.views.get(input.viewId) : undefined;
        const channel = typeof input.channel === 'string' ? input.channel : undefined;
        const messageTs = typeof input.messageTs === 'string' ? input.messageTs : undefined;
        const payload: Json = {
          ...common,
          type: 'block_actions',
          trigger_id: triggerFor(user.id, channel),
          actions: [{ ...action, action_ts: String(Date.now() / 1000) }],
          ...(view
            ? {
                view: {
                  id: view.id,
                  type: view.view.type,
                  callback_id: view.view.callback_id,
                  private_metadata: view.view.private_metadata,
                },
              }
            : {}),
          ...(channel ? { channel: { id: channel, name: state.channelFor(channel)?.name ?? '' } } : {}),
          ...(channel && messageTs
            ? {
                container: {
                  type: 'message',
                  message_ts: messageTs,
                  channel_id: channel,
                  is_ephemeral: Boolean(state.find(channel, messageTs)?.ephemeralFor),
                },
                message: { ts: messageTs },
                response_url: responseUrl({ user: user.id, channel, messageTs }),
              }
            : {}),
        };
        return { status: (await forwarder().interaction(payload)).status };
      }
      case '/ui/options': {
        const result = await forwarder().interaction({
          ...common,
          type: 'block_suggestion',
          action_id: input.actionId,
          block_id: input.blockId,
          value: String(input.value ?? ''),
          container: { type: 'view', view_id: input.viewId },
        });
        return result.text ? JSON.parse(result.text) : { options: [] };
      }
      case '/ui/submit': {
        const view = state.views.get(String(input.viewId));
        if (!view) throw new Error('unknown view');
        const result = await forwarder().interaction({
          ...common,
          type: 'view_submission',
          trigger_id: triggerFor(user.id, undefined),
          view: { ...view.view, id: view.id, state: { values: input.values } },
        });
        const answer = result.text ? (JSON.parse(result.text) as Json) : {};
        if (answer.response_action === 'errors') {
          view.errors = answer.errors as Record<string, string>;
        } else {
          state.views.delete(view.id);
        }
        state.touch();
        return answer;
      }
      case '/ui/close':
        state.views.delete(String(input.viewId));
        state.touch();
        return {};
      case '/ui/home':
        await forwarder().event({
          type: 'app_home_opened',
          user: user.id,
          channel: `D${user.id.slice(1)}`,
          tab: 'home',
        });
        return {};
      case '/ui/shortcut':
        await forwarder().interaction({
          ...common,
          type: 'shortcut',
          callback_id: String(input.callbackId),
          trigger_id: triggerFor(user.id, undefined),
          action_ts: String(Date.now() / 1000),
        });
        return {};
      default:
        throw new Error(`no such page action ${path}`);
    }
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      logger.warn('A sandbox request failed', { error });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error: error instanceof Error ? error.message : 'failed' }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && CONTENT_TYPES[path]) {
      const file = path === '/' ? 'index.html' : path.slice(1);
      res.writeHead(200, { 'content-type': CONTENT_TYPES[path] as string, 'cache-control': 'no-store' });
      res.end(await readFile(new URL(file, PAGE)));
      return;
    }
    const body = await readBody(req);
    if (path.startsWith('/api/')) {
      json(200, webApi(path.slice('/api/'.length), parseArgs(body, req.headers['content-type'])));
      return;
    }
    if (path.startsWith('/response/')) {
      const target = responses.get(path.slice('/response/'.length));
      if (!target) {
        json(404, { ok: false, error: 'expired_url' });
        return;
      }
      respond(target, JSON.parse(body || '{}') as Json);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (path.startsWith('/upload/')) {
      const file = state.files.get(path.slice('/upload/'.length));
      if (file) Object.assign(file, { content: body, pending: false });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${body.length}`);
      return;
    }
    if (path.startsWith('/ui/')) {
      const input =
        req.method === 'GET'
          ? Object.fromEntries(new URL(req.url ?? '/', 'http://sandbox').searchParams)
          : (JSON.parse(body || '{}') as Json);
      json(200, await ui(path, input));
      return;
    }
    json(404, { ok: false, error: 'not_found' });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    apiUrl: `${base}/api/`,
    state,
    connect: (botUrl, signingSecret) => {
      bot = new BotForwarder(botUrl, signingSecret);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type { SandboxMessage };
