import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { readBody } from '../read-body.js';
import { BotForwarder } from './forward-to-bot.js';
import { keepMessages } from './kept-messages.js';
import { pageActions } from './page-actions.js';
import { readPageFile } from './page-files.js';
import { type Refusal, RequestGuard } from './request-guard.js';
import { BOT_ID, type ResponseTarget, type SandboxLimits, SandboxState } from './sandbox-state.js';
import { sandboxWebApi } from './sandbox-web-api.js';
import { parseWebApiArgs } from './web-api-args.js';

export interface Sandbox {
  /** The page to open. */
  url: string;
  /** What the bot uses as SLACK_API_URL. */
  apiUrl: string;
  state: SandboxState;
  /** Where user actions go: the bot's POST /slack/events. Set once the bot listens. */
  connect(
    botUrl: string,
    signingSecret: string,
    options?: { unfurlHost?: string | undefined; mcpUrl?: string | undefined },
  ): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/**
 * A file's content as uploaded to its upload URL: the body itself, or the file in a multipart form
 * (the Slack SDK's `filesUploadV2` sends one), so the file opens as what was uploaded.
 */
async function uploadedContent(body: string, contentType: string | undefined): Promise<string> {
  if (!contentType?.startsWith('multipart/form-data')) return body;
  try {
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    for (const value of form.values()) return typeof value === 'string' ? value : await value.text();
  } catch {
    // Not a form after all: keep the body as it came.
  }
  return body;
}

/** Largest body the sandbox reads: a message or a view of fifty blocks fits many times over. */
const SANDBOX_BODY_LIMIT = 1024 * 1024;

/**
 * A local stand-in for Slack, so the real bot runs unchanged in a browser: it serves the Web API
 * methods the bot calls, the response_urls it answers through, and a page where a person types
 * `/events ...`, clicks buttons and fills modals. Every user action is forwarded to the bot
 * signed, exactly as Slack would send it. Only that page, in its owner's browser, can drive it
 * (see RequestGuard).
 */
export async function startSandbox(options: {
  logger: Logger;
  port?: number;
  /** How many response_urls and triggers are kept. */
  limits?: SandboxLimits;
  /** The file its messages are kept in across restarts (`keptMessagesPath`); none: gone at exit. */
  keepMessagesIn?: string | undefined;
}): Promise<Sandbox> {
  const { logger } = options;
  const state = new SandboxState(options.limits);
  // Read back before the page or the bot can see the state: the cards the bot stored are there.
  const kept = options.keepMessagesIn ? await keepMessages(state, options.keepMessagesIn, logger) : undefined;
  // Made up at each start and written into the page: what proves a request came from the page.
  const token = randomBytes(32).toString('hex');
  let bot: BotForwarder | undefined;
  let base = '';
  let unfurlHost: string | undefined;
  let mcpUrl: string | undefined;
  let guard: RequestGuard | undefined;

  const webApi = sandboxWebApi({ state, logger, uploadUrl: (id) => `${base}/upload/${id}` });
  const ui = pageActions({
    state,
    bot: () => {
      if (!bot) throw new Error('The bot is not connected yet');
      return bot;
    },
    responseUrl: (target) => `${base}/response/${state.addResponseTarget(target)}`,
    unfurlHost: () => unfurlHost,
  });

  /** A post to a response_url: a new private answer, or the original message replaced in place. */
  function respond(target: ResponseTarget, body: Json): void {
    const text = String(body.text ?? '');
    const blocks = Array.isArray(body.blocks) ? body.blocks : [];
    const originalTs = target.messageTs ?? target.postedTs;
    const original = originalTs ? state.find(target.channel, originalTs) : undefined;
    if (original && body.delete_original) {
      state.messages.splice(state.messages.indexOf(original), 1);
      state.touch();
    } else if (original && body.replace_original) {
      original.text = text;
      original.blocks = blocks;
      original.edited = true;
      state.touch();
    } else {
      if (body.response_type === 'in_channel' && target.command) {
        // Slack shares the command typed with an answer to everyone, once, above it.
        state.post({ channel: target.channel, author: target.user, text: target.command, blocks: [] });
        target.command = undefined;
      }
      const posted = state.post({
        channel: target.channel,
        author: BOT_ID,
        text,
        blocks,
        ephemeralFor: body.response_type === 'in_channel' ? undefined : target.user,
      });
      target.postedTs = posted.ts;
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
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // No guard yet means the port is not known yet: refuse rather than serve unguarded.
    const refusal: Refusal | undefined = guard
      ? guard.refusal(req.method, path, req.headers)
      : { status: 403, reason: 'starting' };
    if (refusal) {
      logger.warn('The sandbox refused a request', { method: req.method, path, reason: refusal.reason });
      res.writeHead(refusal.status, {
        'content-type': 'application/json',
        ...(refusal.allow ? { allow: refusal.allow } : {}),
      });
      res.end(JSON.stringify({ ok: false, error: refusal.reason }));
      return;
    }
    if (req.method === 'GET') {
      const file = await readPageFile(path, token, { mcpUrl });
      if (file) {
        res.writeHead(200, {
          'content-type': file.type,
          'cache-control': 'no-store',
          // Never inside another site's frame: its own token and origin would pass, and a hostile
          // page could lay it under a decoy and have the promo editor click (clickjacking).
          'x-frame-options': 'DENY',
          'content-security-policy': "frame-ancestors 'none'",
        });
        res.end(file.body);
        return;
      }
    }
    if (path === '/ui/state' && req.method === 'GET') {
      json(200, await ui(path, Object.fromEntries(url.searchParams)));
      return;
    }
    if (req.method !== 'POST') {
      json(404, { ok: false, error: 'not_found' });
      return;
    }
    const body = await readBody(req, SANDBOX_BODY_LIMIT);
    if (path.startsWith('/api/')) {
      json(200, webApi(path.slice('/api/'.length), parseWebApiArgs(body, req.headers['content-type'])));
      return;
    }
    if (path.startsWith('/response/')) {
      const target = state.responseTarget(path.slice('/response/'.length));
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
      const content = await uploadedContent(body, req.headers['content-type']);
      if (file) Object.assign(file, { content, pending: false });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${content.length}`);
      return;
    }
    if (path.startsWith('/ui/')) {
      json(200, await ui(path, JSON.parse(body || '{}') as Json));
      return;
    }
    json(404, { ok: false, error: 'not_found' });
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  guard = new RequestGuard(port, token);
  base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/`,
    apiUrl: `${base}/api/`,
    state,
    connect: (botUrl, signingSecret, options = {}) => {
      bot = new BotForwarder(botUrl, signingSecret);
      unfurlHost = options.unfurlHost;
      mcpUrl = options.mcpUrl;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kept?.flush();
    },
  };
}
