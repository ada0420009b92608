import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ScriptProcess, startScript } from '../helpers/script-process.js';

/*
 * The operator's first question at a start: what started, and where. The first log line answers
 * it before anything opens (the sandbox, one process on SQLite, or replicas on Redis), and the
 * sandbox's console line names its page and its store.
 */

const startMain = (env: Record<string, string>) => startScript('src/main.ts', { LOG_LEVEL: 'info', ...env });

const firstLine = (main: ScriptProcess) =>
  JSON.parse(main.output().stderr.split('\n')[0] ?? '{}') as { msg?: string } & Record<string, unknown>;

async function stopped(main: ScriptProcess): Promise<void> {
  main.child.kill('SIGTERM');
  await main.exited;
}

/** A workspace start that cannot reach Slack (port 9: fetch refuses it): it logs its first line, then exits 2. */
const workspace = (env: Record<string, string>) => ({
  SLACK_BOT_TOKEN: 'xoxb-not-real-0123456789',
  SLACK_SIGNING_SECRET: 'a-signing-secret-0123456789',
  SLACK_API_URL: 'http://127.0.0.1:9/api/',
  TICKETING_API_URL: 'simulator',
  PORT: '0',
  ...env,
});

describe('the first log line says which mode started and where', () => {
  it('the sandbox: its page, one process, its store; the console line names the page and the store', async () => {
    const main = await startMain({ PORT: '0', SANDBOX_STORE: 'memory' });
    try {
      await main.waitFor(/open http:\/\/127\.0\.0\.1:\d+/);
      const line = firstLine(main);
      expect(line.msg).toMatch(/^Starting the local Slack sandbox \(no SLACK_ variable is set\)/);
      expect(line.msg).toMatch(/one process, its store in memory \(nothing kept after exit\)/);
      expect(main.output().stdout).toMatch(/Its store: in memory, nothing kept after exit \(SANDBOX_STORE=memory\)/);
    } finally {
      await stopped(main);
    }
  });

  it('the sandbox names the event link pattern it unfolds, and warns of a mistyped variable by the one it resembles', async () => {
    const main = await startMain({ PORT: '0', SANDBOX_STORE: 'memory', REPORT_STREAMNG: 'off' });
    try {
      await main.waitFor(/open http:\/\/127\.0\.0\.1:\d+/);
      await main.waitFor(/Event links it unfolds/);
      expect(main.output().stdout).toContain(
        'Event links it unfolds into cards: https://tickets.example.com/e/<event id> (EVENT_PAGE_URL to change).',
      );
      const warning = main
        .output()
        .stderr.split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; level?: unknown })
        .find((line) => line.msg?.startsWith('REPORT_STREAMNG'));
      expect(warning?.msg).toBe(
        'REPORT_STREAMNG is set but eventops reads no such variable: did you mean REPORT_STREAMING?',
      );
    } finally {
      await stopped(main);
    }
  });

  it('a key set without its URL (the URL mistyped) refuses to start on demo data, naming both in plain lines', async () => {
    const main = await startMain({
      PORT: '0',
      SANDBOX_STORE: 'memory',
      TICKETING_API_ULR: 'https://tickets.example.com/api',
      TICKETING_API_KEY: 'sk_test_not_real_0123',
    });
    expect(await main.exited).toBe(2);
    const { stderr, stdout } = main.output();
    expect(stderr).toContain('TICKETING_API_URL: required when TICKETING_API_KEY is set');
    expect(stderr).toContain(
      'TICKETING_API_ULR is set but eventops reads no such variable: did you mean TICKETING_API_URL?',
    );
    expect(stderr).not.toContain('sk_test_not_real_0123');
    expect(stdout).not.toContain('open http');
  });

  it('the sandbox on a SQLite URL SANDBOX_STORE names: that store, said kept across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-store-'));
    const store = `sqlite://${dir}/sandbox.sqlite`;
    const main = await startMain({ PORT: '0', SANDBOX_STORE: store });
    try {
      await main.waitFor(/open http:\/\/127\.0\.0\.1:\d+/);
      expect(firstLine(main).msg).toContain(`its store in ${store} (kept across restarts)`);
      expect(main.output().stdout).toContain(
        `Its store: ${store}, kept across restarts (SANDBOX_STORE=memory keeps nothing)`,
      );
    } finally {
      await stopped(main);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the sandbox with STORE_URL set (a copied .env.example): one plain line says it is not used, and names the store', async () => {
    const main = await startMain({ PORT: '0', SANDBOX_STORE: 'memory', STORE_URL: 'sqlite://./data/eventops.sqlite' });
    try {
      await main.waitFor(/open http:\/\/127\.0\.0\.1:\d+/);
      expect(main.output().stdout).toContain(
        'STORE_URL is not used by the sandbox; its store is in memory (SANDBOX_STORE)',
      );
    } finally {
      await stopped(main);
    }
  });

  it('a workspace on SQLite: the HTTP receiver, its port, one process, the store', async () => {
    const main = await startMain(workspace({ STORE_URL: 'sqlite://:memory:' }));
    await main.exited;
    expect(firstLine(main).msg).toBe(
      'Starting eventops for a Slack workspace: the HTTP receiver on port 0 (POST /slack/events), one process on SQLite (sqlite://:memory:)',
    );
  });

  it('a workspace on Redis: replicas, the Redis address without its password', async () => {
    const main = await startMain(workspace({ STORE_URL: 'redis://ops:s3cret-pass@127.0.0.1:1/2' }));
    await main.exited;
    const line = firstLine(main);
    expect(line.msg).toBe(
      'Starting eventops for a Slack workspace: the HTTP receiver on port 0 (POST /slack/events), replicas on Redis (redis://127.0.0.1:1/2)',
    );
    expect(main.output().stderr).not.toContain('s3cret-pass');
  });

  it('a workspace in Socket Mode: said so, with the health port', async () => {
    const main = await startMain(
      workspace({ SLACK_APP_TOKEN: 'xapp-1-not-real-0123', HEALTH_PORT: '0', STORE_URL: 'sqlite://:memory:' }),
    );
    await main.exited;
    expect(firstLine(main).msg).toBe(
      'Starting eventops for a Slack workspace: Socket Mode (health and metrics on port 0), one process on SQLite (sqlite://:memory:)',
    );
  });
});
