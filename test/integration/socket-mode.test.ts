import { type AddressInfo, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Bot, composeBot } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

/** A bot in Socket Mode against the simulator, a fake Slack and a WebSocket server standing in for Slack's. */
async function startSocketBot(env: Record<string, string> = {}, healthPort?: number) {
  const sim: Simulator = await startSimulator();
  cleanup.push(() => sim.close());
  const slack: FakeSlack = await startFakeSlack();
  cleanup.push(() => slack.close());
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => wss.once('listening', resolve));
  cleanup.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  slack.setSocketUrl(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/`);
  const acks: unknown[] = [];
  const connected = new Promise<WebSocket>((resolve) => {
    wss.on('connection', (socket) => {
      socket.on('message', (data) => acks.push(JSON.parse(String(data))));
      socket.send(JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0001' } }));
      resolve(socket);
    });
  });

  const config = loadConfig({
    TICKETING_API_URL: sim.url,
    TICKETING_API_KEY: sim.apiKeys[0] as string,
    SLACK_BOT_TOKEN: fakeSlackToken('b', 'socket-test'),
    SLACK_APP_TOKEN: 'xapp-socket-test',
    SLACK_API_URL: slack.apiUrl,
    STORE_URL: 'sqlite://:memory:',
    ...env,
  });
  const logs: string[] = [];
  const bot: Bot = await composeBot(config, {
    logger: createLogger({ level: 'info', write: (line) => logs.push(line) }),
    ...(healthPort === undefined ? {} : { healthPort }),
  });
  cleanup.push(() => bot.close());
  await bot.app.start();
  return { slack, acks, socket: await connected, logs };
}

const answers = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status;
  } catch {
    return 'refused';
  }
};

describe('Socket Mode', () => {
  it('connects with SLACK_APP_TOKEN, acknowledges a slash command envelope and answers', async () => {
    const { slack, acks, socket } = await startSocketBot();
    const responseUrl = slack.responseUrl('socket');
    socket.send(
      JSON.stringify({
        envelope_id: 'env-1',
        type: 'slash_commands',
        accepts_response_payload: true,
        payload: {
          token: 'x',
          team_id: 'T0001',
          channel_id: 'C0001',
          user_id: 'U0001',
          command: '/events',
          text: 'help',
          response_url: responseUrl,
          trigger_id: '1.2.3',
          api_app_id: 'A0001',
        },
      }),
    );
    await slack.waitFor(() => acks.find((ack) => (ack as { envelope_id?: string }).envelope_id === 'env-1'));
    const answer = await slack.waitFor(() => slack.responses[0]);
    expect(JSON.stringify(answer.args.blocks)).toContain('/events report');
    expect(slack.calls.some((call) => call.method === 'apps.connections.open')).toBe(true);
  });

  // Linux routes all of 127.0.0.0/8 to loopback. The port is held on 127.0.0.1 by a server of the
  // test's that answers nothing: a bot that bound every address (or 127.0.0.1) could not start on
  // it, and no other test's server can take it on 127.0.0.1 and answer in the bot's place (one did,
  // when the test asked 127.0.0.1 for a port picked on 127.0.0.2 alone).
  it.runIf(process.platform === 'linux')('serves health and metrics on HOST only', async () => {
    const guard = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => guard.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => guard.close(() => resolve())));
    const port = (guard.address() as AddressInfo).port;
    const { logs } = await startSocketBot({ HOST: '127.0.0.2' }, port);
    const listening = logs
      .map((line) => JSON.parse(line) as { msg?: string; port?: number })
      .find((line) => line.msg === 'Health and metrics listening');
    expect(listening?.port).toBe(port);
    expect(await answers(`http://127.0.0.2:${port}/healthz`)).toBe(200);
    expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBe('refused');
  });

  it('serves the MCP server on MCP_PORT of its own (no HTTP receiver), refusing a request without a token', async () => {
    const { logs } = await startSocketBot({ MCP_SERVER: 'on', MCP_PORT: '0', HOST: '127.0.0.1' });
    const listening = logs
      .map((line) => JSON.parse(line) as { msg?: string; port?: number })
      .find((line) => line.msg === 'MCP server listening');
    expect(listening?.port).toBeGreaterThan(0);
    const answer = await fetch(`http://127.0.0.1:${listening?.port}/mcp`, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(401);
    expect(await answer.text()).toBe('');
    expect(await answers(`http://127.0.0.1:${listening?.port}/healthz`)).toBe(404);
  });
});
