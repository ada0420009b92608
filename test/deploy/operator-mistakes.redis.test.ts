import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';
import { useRedis } from '../helpers/redis-server.js';
import { startScript } from '../helpers/script-process.js';

/*
 * An operator's first mistakes, made on the real process (`src/main.ts`, built, as `npm start`
 * runs it): each ends with exit code 2 and a plain line saying what is wrong and what to do, never
 * a stack trace. The whole of standard error is read, not a tail.
 */

const dir = mkdtempSync(join(tmpdir(), 'eventops-mistakes-'));
const redis = useRedis();
let slack: FakeSlack;
let held: Server;
let heldPort: number;

beforeAll(async () => {
  slack = await startFakeSlack();
  // A port someone else already listens on.
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  heldPort = (held.address() as AddressInfo).port;
});
afterAll(async () => {
  await slack.close();
  await new Promise((resolve) => held.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A workspace start (HTTP receiver, the built-in simulator, SQLite in a scratch folder) with `env` over it. */
const workspace = (env: Record<string, string>) => ({
  SLACK_BOT_TOKEN: fakeSlackToken('b', 'operator'),
  SLACK_SIGNING_SECRET: 'operator-signing-secret',
  SLACK_API_URL: slack.apiUrl,
  TICKETING_API_URL: 'simulator',
  STORE_URL: `sqlite://${join(dir, `${Math.random().toString(36).slice(2)}.sqlite`)}`,
  ...env,
});

/** Starts the bot expecting it to refuse: its exit code, its whole standard error and the plain (non-JSON) lines in it. */
async function refusedStart(env: Record<string, string>) {
  const main = await startScript('src/main.ts', { LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', ...env });
  const timer = setTimeout(() => main.child.kill('SIGKILL'), 25_000);
  const code = await main.exited;
  clearTimeout(timer);
  const { stderr } = main.output();
  return { code, stderr, plainLines: stderr.split('\n').filter((line) => line.trim() && !line.startsWith('{')) };
}

/** Exit 2, no stack frame anywhere, and exactly one plain line, matching `line`. */
function expectOneClearLine(start: Awaited<ReturnType<typeof refusedStart>>, line: RegExp) {
  expect(start.stderr).not.toMatch(/^\s+at /m);
  expect(start.plainLines, start.stderr).toHaveLength(1);
  expect(start.plainLines[0]).toMatch(line);
  expect(start.code, start.stderr).toBe(2);
}

describe('configuration mistakes', () => {
  // The cross-variable rules ran only once every variable was valid on its own: a bad PORT hid them.
  it('names every bad variable at once, a missing key beside a bad port', async () => {
    const start = await refusedStart({ TICKETING_API_URL: 'http://127.0.0.1:9/', PORT: 'abc' });
    expect(start.code).toBe(2);
    expect(start.stderr).not.toMatch(/^\s+at /m);
    expect(start.stderr).toMatch(/^ {2}PORT: expected a port number/m);
    expect(start.stderr).toMatch(/^ {2}TICKETING_API_KEY: required when TICKETING_API_URL is set/m);
  });

  it('names the missing service URL beside a bad log level when a bot token is set', async () => {
    const start = await refusedStart({
      SLACK_BOT_TOKEN: fakeSlackToken('b', 'operator'),
      SLACK_SIGNING_SECRET: 'operator-signing-secret',
      LOG_LEVEL: 'loud',
    });
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/^ {2}LOG_LEVEL: expected one of/m);
    expect(start.stderr).toMatch(/^ {2}TICKETING_API_URL: required when SLACK_BOT_TOKEN is set/m);
  });

  it('mentions SLACK_APP_TOKEN where the HTTP receiver’s signing secret is missing', async () => {
    const start = await refusedStart({
      SLACK_BOT_TOKEN: fakeSlackToken('b', 'operator'),
      TICKETING_API_URL: 'simulator',
    });
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/^ {2}SLACK_SIGNING_SECRET: required for the HTTP receiver.*SLACK_APP_TOKEN/m);
  });
});

describe('environment mistakes', () => {
  it.each([
    ['invalid_auth', /SLACK_BOT_TOKEN: Slack refused the token \(invalid_auth\)/],
    ['not_authed', /SLACK_BOT_TOKEN: Slack received no token \(not_authed\)/],
    ['account_inactive', /SLACK_BOT_TOKEN: .*deactivated or uninstalled.* \(account_inactive\)/],
  ])('says Slack refused the bot token (%s) in one line, exit 2', async (error, line) => {
    slack.failNext('auth.test', error);
    const start = await refusedStart(workspace({}));
    expectOneClearLine(start, line);
  });

  it('says Slack could not be reached, naming the address and why, exit 2', async () => {
    // A port nothing listens on (fetch refuses port 9 itself, before any connection).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const start = await refusedStart(workspace({ SLACK_API_URL: `http://127.0.0.1:${port}/api/` }));
    expectOneClearLine(
      start,
      new RegExp(`^SLACK_API_URL: could not reach Slack at http://127\\.0\\.0\\.1:${port}/api/ \\(ECONNREFUSED\\)$`),
    );
    const blocked = await refusedStart(workspace({ SLACK_API_URL: 'http://127.0.0.1:9/api/' }));
    expectOneClearLine(
      blocked,
      /^SLACK_API_URL: could not reach Slack at http:\/\/127\.0\.0\.1:9\/api\/ \(bad port\)$/,
    );
  });

  it('says Slack refused the app-level token in Socket Mode, exit 2', async () => {
    // The fake Slack answers apps.connections.open with invalid_auth until it is given a socket.
    const start = await refusedStart(
      workspace({ SLACK_APP_TOKEN: 'xapp-1-operator', SLACK_SIGNING_SECRET: '', HEALTH_PORT: '0' }),
    );
    expectOneClearLine(start, /^SLACK_APP_TOKEN: Slack refused the app-level token \(invalid_auth\)/);
  });

  it('says Redis could not be reached, exit 2 (a configuration or environment problem, not a crash)', async () => {
    const start = await refusedStart(workspace({ STORE_URL: 'redis://127.0.0.1:9/0' }));
    expectOneClearLine(start, /^STORE_URL: could not reach Redis at redis:\/\/127\.0\.0\.1:9\/0 \(ECONNREFUSED\)/);
  });

  // It said "could not reach Redis" of a Redis that had answered.
  it('says what a reachable Redis answered, not that it could not be reached', async () => {
    const url = `${redis.url.replace(/\/\d*$/, '')}/99`;
    const start = await refusedStart(workspace({ STORE_URL: url }));
    expectOneClearLine(
      start,
      /^STORE_URL: Redis at redis:\/\/.*\/99 answered with an error \(ERR DB index is out of range\)$/,
    );
  });

  it('names PORT when the HTTP receiver’s port is in use', async () => {
    const start = await refusedStart(workspace({ PORT: String(heldPort) }));
    expectOneClearLine(start, new RegExp(`^PORT: port ${heldPort} on 127\\.0\\.0\\.1 is already in use`));
  });

  it('names HEALTH_PORT when Socket Mode’s health port is in use', async () => {
    const start = await refusedStart(
      workspace({ SLACK_APP_TOKEN: 'xapp-1-operator', SLACK_SIGNING_SECRET: '', HEALTH_PORT: String(heldPort) }),
    );
    expectOneClearLine(start, new RegExp(`^HEALTH_PORT: port ${heldPort} on 127\\.0\\.0\\.1 is already in use`));
  });

  it('names PORT when the local sandbox’s port is in use', async () => {
    const start = await refusedStart({ PORT: String(heldPort) });
    expectOneClearLine(start, new RegExp(`^PORT: port ${heldPort} on 127\\.0\\.0\\.1 is already in use`));
  });
});
