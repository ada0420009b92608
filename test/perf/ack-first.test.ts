import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { afterWaitingAcks } from '../../src/slack/replies/ack-first.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { nthResponse } from '../helpers/bot-actions.js';
import { commandBody, slackSignature } from '../helpers/slack-requests.js';

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
});
