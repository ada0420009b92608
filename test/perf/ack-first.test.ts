import { EventEmitter, once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ackAlreadyGiven,
  ackFirst,
  ackNewConnectionsFirst,
  afterWaitingAcks,
} from '../../src/slack/replies/ack-first.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { nthResponse, responsesTo } from '../helpers/bot-actions.js';
import {
  blockActionBody,
  commandBody,
  postSigned,
  slackSignature,
  viewSubmissionBody,
} from '../helpers/slack-requests.js';

/*
 * Issue 16 item 13: under load, a slash command's ack waited behind the work of every command
 * acknowledged before it (rendering, Slack calls), all run in the same turn of the event loop.
 * Now work after an ack waits until the commands already arrived are acknowledged too. The order
 * is read from the bot's own log: Bolt's "ack() response sent" and the command's "Slash command"
 * line, its work starting.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** One signed `/events` request as raw HTTP/1.1, for a socket to write whole. */
function rawCommand(r: BotRig, text: string, responseUrl: string, connection: 'keep-alive' | 'close'): string {
  const body = commandBody({ text, response_url: responseUrl });
  const timestamp = Math.floor(Date.now() / 1000);
  const { host, pathname } = new URL(r.url);
  return [
    `POST ${pathname} HTTP/1.1`,
    `Host: ${host}`,
    'Content-Type: application/x-www-form-urlencoded',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Slack-Request-Timestamp: ${timestamp}`,
    `X-Slack-Signature: ${slackSignature(SIGNING_SECRET, timestamp, body)}`,
    `Connection: ${connection}`,
    '',
    body,
  ].join('\r\n');
}

interface Connection {
  socket: Socket;
  /** Everything the bot sent on it, once it closes. */
  received: Promise<string>;
}

/**
 * Opens `count` keep-alive connections to the bot, each carrying one command that is answered:
 * the bot has accepted every one of them, so the next requests on them are read in one poll.
 */
async function connections(r: BotRig, count: number): Promise<Connection[]> {
  const { hostname, port } = new URL(r.url);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const opened = connect(Number(port), hostname, () => resolve(opened));
        opened.once('error', reject);
      });
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      const received = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
      const url = r.slack.responseUrl(`open-${i}`);
      socket.write(rawCommand(r, 'help', url, 'keep-alive'));
      await nthResponse(r, url);
      return { socket, received };
    }),
  );
}

/** Log lines (parsed) from `from` on. */
const linesFrom = (r: BotRig, from: number) => r.logs.slice(from).map((line) => JSON.parse(line) as { msg?: string });

describe('acks before answers', () => {
  it('acknowledges every command that arrived together before the first one is worked on', async () => {
    rig = await startBot();
    const r = rig;
    const count = 8;
    const open = await connections(r, count);
    const from = r.logs.length;
    const urls = open.map((_, i) => r.slack.responseUrl(`together-${i}`));
    // All written in one turn: the bot reads them in its next poll, as a burst from Slack arrives.
    open.forEach(({ socket }, i) => {
      socket.write(rawCommand(r, 'help', urls[i] as string, 'close'));
    });
    for (const { received } of open) expect((await received).match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    for (const url of urls) await nthResponse(r, url);

    const lines = linesFrom(r, from);
    const acked = lines.flatMap((line, at) => (line.msg?.startsWith('ack() response sent') ? [at] : []));
    const worked = lines.flatMap((line, at) => (line.msg === 'Slash command' ? [at] : []));
    expect(acked).toHaveLength(count);
    expect(worked).toHaveLength(count);
    // Before: ack, work, ack, work... each ack waited for the work of the ones before it.
    expect(Math.max(...acked)).toBeLessThan(Math.min(...worked));
  });

  it('starts one waiting listener per turn of the event loop, reading what arrived in between first', async () => {
    // A loopback connection stands for Slack: what the first listener sends on it arrives while
    // the others still wait, and is read before the second one starts.
    const order: string[] = [];
    const server = createServer((socket) => socket.on('data', () => order.push('request read')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    // Accepted before the listeners queue up: the data is then all there is to read.
    const accepted = once(server, 'connection');
    const client = await new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
    });
    await accepted;
    try {
      await Promise.all(
        [1, 2, 3].map(async (n) => {
          await afterWaitingAcks();
          order.push(`listener ${n}`);
          if (n === 1) client.write('a request arriving meanwhile');
        }),
      );
      await expect.poll(() => order).toContain('request read');
      expect(order).toEqual(['listener 1', 'request read', 'listener 2', 'listener 3']);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("acknowledges a command before Bolt's pipeline runs for it", async () => {
    // Issue 44 item 9: the pipeline (authorization, every listener's matchers) ran before the
    // listener's ack, 1-4 ms a request while the code was new. A middleware held shut shows the
    // order: before, the command's 200 waited for it.
    rig = await startBot();
    const r = rig;
    const held = heldMiddleware(r);
    const url = r.slack.responseUrl('acked-before-the-pipeline');
    const reply = await postSigned(r.url, SIGNING_SECRET, commandBody({ text: 'help', response_url: url }));
    expect(reply.status).toBe(200);
    await held.entered;
    expect(responsesTo(r, url)).toEqual([]);
    held.release();
    await nthResponse(r, url);
  });

  it('acknowledges a button click before the pipeline too', async () => {
    rig = await startBot();
    const r = rig;
    const held = heldMiddleware(r);
    const body = blockActionBody({
      actionId: 'events_next_page',
      value: '{}',
      responseUrl: r.slack.responseUrl('click'),
    });
    expect((await postSigned(r.url, SIGNING_SECRET, body)).status).toBe(200);
    await held.entered;
    held.release();
  });

  it("keeps Bolt's order for a form submitted, whose ack may carry its errors", async () => {
    rig = await startBot();
    const r = rig;
    const held = heldMiddleware(r);
    const from = r.logs.length;
    const body = viewSubmissionBody({ callbackId: 'watch_modal', privateMetadata: '{}', values: {} });
    const replied = postSigned(r.url, SIGNING_SECRET, body);
    await held.entered;
    // Nothing acknowledged it yet: the listener, behind the held middleware, gives the ack.
    expect(linesFrom(r, from).some((line) => line.msg?.startsWith('ack() response sent'))).toBe(false);
    held.release();
    expect((await replied).status).toBe(200);
  });
});

describe('a request the app acknowledged', () => {
  it('does not wait its turn a second time in its listener', async () => {
    // The app waited its turn before the pipeline ran: a second wait held modals' trigger ids longer.
    const order: string[] = [];
    setImmediate(() => order.push('the next turn'));
    await ackFirst(ackAlreadyGiven());
    order.push('the work');
    expect(order).toEqual(['the work']);
  });

  it('counts its wait in line in the command latency metric', async () => {
    rig = await startBot();
    const r = rig;
    const url = r.slack.responseUrl('latency-with-the-wait');
    const body = Object.fromEntries(new URLSearchParams(commandBody({ text: 'help', response_url: url })));
    // Queued first: starts at the next turn and keeps the loop 250 ms, the command's pipeline behind it.
    void afterWaitingAcks().then(() => {
      const until = performance.now() + 250;
      while (performance.now() < until);
    });
    await r.bot.app.processEvent({ body, ack: async () => {} });
    await nthResponse(r, url);
    const metrics = await (await fetch(new URL('/metrics', r.url))).text();
    const sum = Number(metrics.match(/^eventops_command_duration_seconds_sum\{kind="command"\} (\S+)$/m)?.[1]);
    // Before, the timer started when the pipeline did, after the wait: the help answer took ms.
    expect(sum).toBeGreaterThanOrEqual(0.25);
  });
});

/** A global middleware that holds the first request reaching it until released. */
function heldMiddleware(r: BotRig): { entered: Promise<void>; release(): void } {
  let enter: () => void = () => {};
  let release: () => void = () => {};
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let first = true;
  r.bot.app.use(async ({ next }) => {
    if (first) {
      first = false;
      enter();
      await gate;
    }
    await next();
  });
  return { entered, release };
}

describe('new connections acknowledged first', () => {
  /** Turns of the event loop: a poll, then the immediates queued before it. */
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('starts no waiting listener while the receiver is still accepting connections', async () => {
    // libuv accepts one connection a turn: twenty commands on new connections are read over twenty
    // turns, and a listener started in each stood before the ones still in the kernel's queue.
    const server = new EventEmitter();
    ackNewConnectionsFirst(server);
    let started = false;
    server.emit('connection');
    const work = afterWaitingAcks().then(() => {
      started = true;
    });
    for (let accepted = 0; accepted < 5; accepted += 1) {
      await turn();
      expect(started).toBe(false);
      server.emit('connection');
    }
    await turn();
    expect(started).toBe(false);
    // A turn that accepted nothing: the queue is empty, the work starts.
    await turn();
    await work;
    expect(started).toBe(true);
  });

  it('starts the work anyway when connections keep coming', async () => {
    const server = new EventEmitter();
    ackNewConnectionsFirst(server);
    let started = false;
    const work = afterWaitingAcks().then(() => {
      started = true;
    });
    const since = performance.now();
    while (!started) {
      server.emit('connection');
      await turn();
    }
    await work;
    // Held, then let go after its hold of 100 ms.
    expect(performance.now() - since).toBeGreaterThanOrEqual(100);
  });
});
