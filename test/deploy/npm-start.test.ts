import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { builtSources } from '../helpers/built-sources.js';
import { followOutput } from '../helpers/script-process.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

/*
 * `npm start` as an operator runs it, in a folder laid out like a clone: package.json's own start
 * script, `dist/` (the built sources), a `.env` beside them. Its prestart build is left out (the
 * built sources stand in for `dist/`), so this is the start script itself.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const startScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
  .scripts.start;

let clone: string;
beforeAll(async () => {
  clone = mkdtempSync(join(tmpdir(), 'eventops-clone-'));
  writeFileSync(
    join(clone, 'package.json'),
    JSON.stringify({
      name: 'eventops',
      version: '0.1.0',
      private: true,
      type: 'module',
      scripts: { start: startScript },
    }),
  );
  symlinkSync(await builtSources(), join(clone, 'dist'), 'dir');
});
afterAll(() => rmSync(clone, { recursive: true, force: true }));

/** Every process below `pid` (npm's shell and the bot), from `ps`. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const parent = pending.pop();
    for (const [child, ppid] of rows)
      if (ppid === parent && !found.includes(child)) {
        found.push(child);
        pending.push(child);
      }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Processes a test left running (npm and all below it), killed after it whatever happened. */
let leftovers: number[] = [];
afterEach(() => {
  const all = [...leftovers, ...leftovers.flatMap(descendants)];
  for (const pid of all) if (alive(pid)) process.kill(pid, 'SIGKILL');
  leftovers = [];
});

function npmStart(env: Record<string, string>, dotEnv: string) {
  writeFileSync(join(clone, '.env'), dotEnv);
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: clone,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  leftovers.push(child.pid as number);
  return followOutput(child);
}

/** Waits up to `timeoutMs` for `pids` to be gone; those still alive then. */
async function gone(pids: number[], timeoutMs: number): Promise<number[]> {
  await waitFor(() => !pids.some(alive), { what: `processes ${pids.join(', ')} to end`, timeoutMs, intervalMs: 100 })
    // The caller's expectation names the ones left.
    .catch(() => undefined);
  return pids.filter(alive);
}

describe('npm start', () => {
  it('reads .env under the environment: the environment wins, and a mistake in the file is named', async () => {
    const start = npmStart({ PORT: '0', HOST: '127.0.0.1' }, 'TICKETING_REPORT_LIMIT=lots\nPORT=not-a-port\n');
    const code = await Promise.race([start.exited, sleep(15_000).then(() => 'running')]);
    expect(code, start.output().stderr).toBe(2);
    const { stderr } = start.output();
    expect(stderr).toMatch(/^ {2}TICKETING_REPORT_LIMIT: expected <requests>\/<window>/m);
    expect(stderr).not.toMatch(/PORT: expected/);
    expect(stderr).toMatch(/\.env was read, and the environment's values win over it/);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it('says in its first log line that .env was read, and stops when npm is signalled', async () => {
    const start = npmStart({ LOG_LEVEL: 'info' }, 'HOST=127.0.0.1\nPORT=0\nLOG_LEVEL=error\n');
    const pid = start.child.pid as number;
    try {
      await start.waitFor(/open http:\/\/127\.0\.0\.1:\d+\//, 20_000);
      const first = JSON.parse(start.output().stderr.split('\n')[0] ?? '{}') as Record<string, unknown>;
      expect(first.msg).toMatch(/^Read \.env: 3 variables, under the environment's/);
      expect(first.keptFromEnvironment).toEqual(['LOG_LEVEL']);
      const bot = descendants(pid);
      leftovers.push(...bot);
      expect(bot.length).toBeGreaterThan(0);
      // What `kill <pid of npm start>` does: the bot shuts down cleanly, nothing keeps serving.
      process.kill(pid, 'SIGTERM');
      expect(await gone(bot, 15_000)).toEqual([]);
      expect(start.output().stderr).toMatch(/"msg":"Stopped"/);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('starts the sandbox from .env.example copied as it is: its blank lines mean unset', async () => {
    // The README's first step: `cp .env.example .env`, then `npm start`. Its blank SLACK_ lines
    // once counted as set and refused the start ("SLACK_BOT_TOKEN: required ... set but empty").
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const start = npmStart({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, example);
    const pid = start.child.pid as number;
    try {
      const exited = start.exited.then((code) => `exited with ${code}`);
      const opened = start.waitFor(/open http:\/\/127\.0\.0\.1:\d+\//, 20_000).then(() => 'opened');
      expect(await Promise.race([opened, exited]), start.output().stderr).toBe('opened');
      const first = JSON.parse(start.output().stderr.split('\n')[0] ?? '{}') as Record<string, unknown>;
      expect(first.leftEmptySoUnset).toEqual(expect.arrayContaining(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']));
      leftovers.push(...descendants(pid));
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
    }
  });

  it('stops the bot when npm itself is killed and can pass no signal on', async () => {
    const start = npmStart({ PORT: '0', HOST: '127.0.0.1' }, '');
    const pid = start.child.pid as number;
    await start.waitFor(/open http:\/\/127\.0\.0\.1:\d+\//, 20_000);
    const bot = descendants(pid);
    leftovers.push(...bot);
    process.kill(pid, 'SIGKILL');
    expect(await gone(bot, 10_000)).toEqual([]);
  });
});
