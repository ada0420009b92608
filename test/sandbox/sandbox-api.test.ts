import { readdirSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { CHANGE_PROMO_SHORTCUT } from '../../src/render/modal-views.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox-server.js';

let sandbox: Sandbox | undefined;
let bot: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  bot?.closeAllConnections();
  await new Promise((resolve) => (bot ? bot.close(resolve) : resolve(undefined)));
  bot = undefined;
});

const quiet = () => createLogger({ write: () => {} });
const portOf = (s: Sandbox) => Number(new URL(s.url).port);

/** The files of the sandbox's page folder, each of which the page may load. */
const PAGE_FILES = readdirSync(new URL('../../src/sandbox/page/', import.meta.url));

/**
 * A request as any client may send it, Host included (fetch does not let a caller set Host, and
 * forging it is what a DNS-rebinding page does).
 */
function send(
  s: Sandbox,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: portOf(s),
        method: options.method ?? 'GET',
        path: options.path,
        headers: { host: `127.0.0.1:${portOf(s)}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The token the page holds, read out of the page as a browser on the sandbox's address gets it. */
async function pageToken(s: Sandbox): Promise<string> {
  const page = await send(s, { path: '/' });
  return /<meta name="sandbox-token" content="([0-9a-f]+)"/.exec(page.body)?.[1] ?? '';
}

/** What the page sends for a command: same origin, its token, JSON. */
const fromPage = (s: Sandbox, token: string) => ({
  'content-type': 'application/json',
  origin: `http://127.0.0.1:${portOf(s)}`,
  'x-sandbox-token': token,
});

const COMMAND = { user: 'UEDITOR01', channel: 'CGENERAL01', text: '/events promo evt_1 promo_1 7' };

/** A bot that records the form bodies the sandbox forwards and answers each with 200. */
async function connectRecordingBot(s: Sandbox): Promise<URLSearchParams[]> {
  const received: URLSearchParams[] = [];
  bot = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      res.end();
    });
  });
  await new Promise<void>((resolve) => bot?.listen(0, '127.0.0.1', resolve));
  s.connect(`http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`, 'secret');
  return received;
}

const api = async (s: Sandbox, method: string, args: Record<string, unknown>) => {
  const response = await fetch(`${s.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return (await response.json()) as Record<string, unknown>;
};

describe('the sandbox as the bot Slack', () => {
  it('answers an unknown Web API method like Slack does, and logs it', async () => {
    const lines: string[] = [];
    sandbox = await startSandbox({ logger: createLogger({ write: (line) => lines.push(line) }) });
    expect(await api(sandbox, 'reactions.add', { name: 'tada' })).toEqual({ ok: false, error: 'unknown_method' });
    expect(lines.some((line) => line.includes('reactions.add'))).toBe(true);
  });

  it('posts, updates in place, keeps ephemeral messages and DMs to their person, and opens DMs by user id', async () => {
    sandbox = await startSandbox({ logger: createLogger({ write: () => {} }) });
    const posted = await api(sandbox, 'chat.postMessage', { channel: 'CGENERAL01', text: 'hello' });
    await api(sandbox, 'chat.update', { channel: 'CGENERAL01', ts: posted.ts, text: 'hello again' });
    await api(sandbox, 'chat.postEphemeral', { channel: 'CGENERAL01', user: 'UEDITOR01', text: 'only you' });
    const dm = await api(sandbox, 'chat.postMessage', { channel: 'UVIEWER02', text: 'psst' });
    expect(dm.channel).toBe('DVIEWER02');
    const editor = sandbox.state.visibleTo('UEDITOR01').messages.map((m) => m.text);
    const viewer = sandbox.state.visibleTo('UVIEWER02').messages.map((m) => m.text);
    expect(editor).toEqual(['hello again', 'only you']);
    expect(viewer).toEqual(['hello again', 'psst']);
    expect(sandbox.state.visibleTo('UVIEWER02').channels.map((c) => c.id)).toEqual([
      'CGENERAL01',
      'COPS000002',
      'DVIEWER02',
    ]);
    expect(await api(sandbox, 'users.info', { user: 'UVIEWER02' })).toMatchObject({ user: { tz: 'Asia/Kolkata' } });
  });
});

describe('the sandbox drives only from its own page', () => {
  it('runs a command the page sends: a POST from its own origin with its token', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    const answer = await send(sandbox, {
      method: 'POST',
      path: '/ui/command',
      headers: fromPage(sandbox, await pageToken(sandbox)),
      body: JSON.stringify(COMMAND),
    });
    expect(answer.status).toBe(200);
    expect(received.map((form) => form.get('text'))).toEqual(['promo evt_1 promo_1 7']);
  });

  it('is driven the same way when opened as localhost:PORT', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    const host = `localhost:${portOf(sandbox)}`;
    const page = await send(sandbox, { path: '/', headers: { host } });
    expect(page.status).toBe(200);
    const answer = await send(sandbox, {
      method: 'POST',
      path: '/ui/command',
      headers: { ...fromPage(sandbox, await pageToken(sandbox)), host, origin: `http://${host}` },
      body: JSON.stringify(COMMAND),
    });
    expect(answer.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('holds a token of its own in the page at each start', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const other = await startSandbox({ logger: quiet() });
    try {
      const [mine, theirs] = [await pageToken(sandbox), await pageToken(other)];
      expect(mine).toMatch(/^[0-9a-f]{64}$/);
      expect(theirs).toMatch(/^[0-9a-f]{64}$/);
      expect(mine).not.toBe(theirs);
    } finally {
      await other.close();
    }
  });

  it("writes the bot's promo shortcut callback id into the page, so the page keeps no copy", async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const page = await send(sandbox, { path: '/' });
    expect(page.body).toContain(`<meta name="promo-shortcut" content="${CHANGE_PROMO_SHORTCUT}" />`);
    for (const file of PAGE_FILES.filter((name) => name.endsWith('.js'))) {
      const script = await send(sandbox, { path: `/${file}` });
      expect(script.body, file).not.toContain(CHANGE_PROMO_SHORTCUT);
    }
  });

  it('serves every file of its page folder: a module or sheet not listed would break the page', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    expect(PAGE_FILES).toContain('app.js');
    for (const file of PAGE_FILES.filter((name) => name !== 'index.html')) {
      const served = await send(sandbox, { path: `/${file}` });
      expect({ file, status: served.status }).toEqual({ file, status: 200 });
    }
  });

  it('refuses a request whose Host is not its own loopback address, the page included (DNS rebinding)', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    const token = await pageToken(sandbox);
    const rebound = `rebound.example:${portOf(sandbox)}`;
    const page = await send(sandbox, { path: '/', headers: { host: rebound } });
    expect(page.status).toBe(403);
    expect(page.body).not.toContain(token);
    const command = await send(sandbox, {
      method: 'POST',
      path: '/ui/command',
      headers: { ...fromPage(sandbox, token), host: rebound, origin: `http://${rebound}` },
      body: JSON.stringify(COMMAND),
    });
    expect(command.status).toBe(403);
    expect(received).toEqual([]);
    expect(sandbox.state.messages).toEqual([]);
  });

  it('refuses a cross-origin POST, even one carrying the token, to the page actions and to the Web API', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    const command = await send(sandbox, {
      method: 'POST',
      path: '/ui/command',
      headers: { ...fromPage(sandbox, await pageToken(sandbox)), origin: 'http://evil.example' },
      body: JSON.stringify(COMMAND),
    });
    expect(command.status).toBe(403);
    const post = await send(sandbox, {
      method: 'POST',
      path: '/api/chat.postMessage',
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
      body: JSON.stringify({ channel: 'CGENERAL01', text: 'Click here' }),
    });
    expect(post.status).toBe(403);
    expect(received).toEqual([]);
    expect(sandbox.state.messages).toEqual([]);
  });

  it('refuses a text/plain POST without the token, with or without an Origin of its own', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    for (const headers of [
      { 'content-type': 'text/plain' },
      { 'content-type': 'text/plain', origin: `http://127.0.0.1:${portOf(sandbox)}` },
    ]) {
      const answer = await send(sandbox, {
        method: 'POST',
        path: '/ui/command',
        headers,
        body: JSON.stringify(COMMAND),
      });
      expect(answer.status).toBe(403);
    }
    expect(received).toEqual([]);
    expect(sandbox.state.messages).toEqual([]);
  });

  it('changes nothing on a GET with a command (an <img> pointing at it)', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    const answer = await send(sandbox, { path: `/ui/command?${new URLSearchParams(COMMAND)}` });
    expect(answer.status).toBe(405);
    expect(received).toEqual([]);
    expect(sandbox.state.messages).toEqual([]);
  });
});

describe('the sandbox keeps a bounded number of response_urls and triggers', () => {
  /** Runs `count` commands from the page and returns what the bot was given for each. */
  async function commands(s: Sandbox, count: number): Promise<URLSearchParams[]> {
    const received = await connectRecordingBot(s);
    const headers = fromPage(s, await pageToken(s));
    for (let i = 0; i < count; i += 1) {
      await send(s, { method: 'POST', path: '/ui/command', headers, body: JSON.stringify(COMMAND) });
    }
    return received;
  }

  it('forgets the oldest response_url once more than the limit were handed out', async () => {
    sandbox = await startSandbox({ logger: quiet(), limits: { responseUrls: 2 } });
    const urls = (await commands(sandbox, 3)).map((form) => new URL(form.get('response_url') ?? '').pathname);
    const post = (path: string) => send(sandbox as Sandbox, { method: 'POST', path, body: '{"text":"done"}' });
    expect((await post(urls[0] ?? '')).status).toBe(404);
    expect((await post(urls[2] ?? '')).status).toBe(200);
  });

  it('forgets the oldest trigger once more than the limit were handed out', async () => {
    sandbox = await startSandbox({ logger: quiet(), limits: { triggers: 2 } });
    const triggers = (await commands(sandbox, 3)).map((form) => form.get('trigger_id'));
    const open = async (trigger: string | null) =>
      api(sandbox as Sandbox, 'views.open', { trigger_id: trigger, view: { type: 'modal', blocks: [] } });
    expect(await open(triggers[0] ?? null)).toEqual({ ok: false, error: 'invalid_trigger_id' });
    expect(await open(triggers[2] ?? null)).toMatchObject({ ok: true });
  });
});

describe('a command’s response_url, as in Slack', () => {
  it('replaces the message it posted before when told to replace_original, and posts beside it otherwise', async () => {
    sandbox = await startSandbox({ logger: quiet() });
    const received = await connectRecordingBot(sandbox);
    await send(sandbox, {
      method: 'POST',
      path: '/ui/command',
      headers: fromPage(sandbox, await pageToken(sandbox)),
      body: JSON.stringify(COMMAND),
    });
    const path = new URL(received[0]?.get('response_url') ?? '').pathname;
    const post = (body: Record<string, unknown>) =>
      send(sandbox as Sandbox, { method: 'POST', path, body: JSON.stringify(body) });
    const texts = () => (sandbox as Sandbox).state.messages.map((message) => message.text);
    await post({ text: 'Fetching the report' });
    await post({ text: 'The answer', replace_original: true });
    expect(texts()).toEqual(['The answer']);
    await post({ text: 'A second answer' });
    expect(texts()).toEqual(['The answer', 'A second answer']);
    await post({ text: 'The second, replaced', replace_original: true });
    expect(texts()).toEqual(['The answer', 'The second, replaced']);
  });
});
