import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { builtScript } from './built-sources.js';
import { EXIT_WITH_PARENT } from './exit-with-parent.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';
import { fakeSlackToken } from './fake-tokens.js';
import { type RedisServer, startRedis } from './redis-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One bot process, as `npm start` runs it (the sources built to JavaScript), with its JSON log lines. */
export interface Replica {
  name: string;
  /** Where its HTTP receiver listens (POST /slack/events, /healthz, /readyz, /metrics). */
  url: string;
  logs: Record<string, unknown>[];
  /** Waits for a log line that matches. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGKILL: no shutdown, no goodbye, as a crashed or evicted container. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
  exited: Promise<number | null>;
}

export interface ReplicaOptions {
  name: string;
  /** Run `dist/main.js` as `npm run build` left it (the image's build) rather than a build of the sources as they are now. @default 'sources' */
  build?: 'sources' | 'dist';
  env: Record<string, string>;
  signingSecret: string;
}

/** Starts the built `src/main.ts` (or `dist/main.js`) in a child process with `env` (and nothing of this process's secrets). */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const main = options.build === 'dist' ? 'dist/main.js' : await builtScript('src/main.ts');
  // Source maps: stack traces in its output name the TypeScript sources, as they did under tsx.
  const args = ['--enable-source-maps', '--import', EXIT_WITH_PARENT, main];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      SLACK_BOT_TOKEN: fakeSlackToken('b', options.name),
      SLACK_SIGNING_SECRET: options.signingSecret,
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const listeners = new Set<() => void>();
  // The log is JSON lines on stderr (pino); stdout carries what `main` prints for people.
  let buffered = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
    for (const listener of listeners) listener();
  });
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitForLog = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = logs.find(match);
        if (!found) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${options.name}: no matching log line in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
      }, timeoutMs);
      listeners.add(check);
      void exited.then((code) => {
        if (!listeners.has(check)) return;
        clearTimeout(timer);
        listeners.delete(check);
        reject(new Error(`${options.name} exited (${code}) before the log line; stderr: ${stderr.slice(-2000)}`));
      });
      check();
    });
  // Bounded generously: several bots start at once beside other suites on two cores.
  const listening = await waitForLog(
    (line) => line.msg === 'eventops is listening for Slack on POST /slack/events',
    120_000,
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    name: options.name,
    url: `http://127.0.0.1:${listening.port as number}`,
    logs,
    waitForLog,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A replica's log line saying it has the event catalog: crawled itself, or taken from another replica. */
export const catalogReady = (line: Record<string, unknown>) =>
  line.msg === 'Event catalog refreshed' || line.msg === 'Event catalog taken from another replica';

/** What the replicas of a test file share: one redis-server and one stand-in for Slack's Web API. */
export interface ReplicaSetting {
  readonly redis: RedisServer;
  readonly slack: FakeSlack;
  /** Starts a replica signed with the file's secret; it is killed after the file's tests at the latest. */
  start(name: string, env: Record<string, string>): Promise<Replica>;
  /** Stops (SIGTERM) every replica started so far, and waits for them. */
  stopAll(): Promise<void>;
  /** Closed after the file's tests, last first, once its replicas are killed (simulators, proxies). */
  closers: (() => Promise<unknown>)[];
}

/**
 * A redis-server and a fake Slack for the whole test file, started before its tests and stopped
 * after them with every replica `start` started. Read `.redis` and `.slack` inside tests.
 */
export function useReplicas(signingSecret: string): ReplicaSetting {
  let redis: RedisServer | undefined;
  let slack: FakeSlack | undefined;
  const replicas: Replica[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    [redis, slack] = await Promise.all([startRedis(), startFakeSlack()]);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.kill()));
    for (const close of closers.splice(0).reverse()) await close();
    await slack?.close();
    await redis?.stop();
  });
  return {
    get redis() {
      if (!redis) throw new Error('the redis-server starts before the tests');
      return redis;
    },
    get slack() {
      if (!slack) throw new Error('the fake Slack starts before the tests');
      return slack;
    },
    start: async (name, env) => {
      const replica = await startReplica({ name, env, signingSecret });
      replicas.push(replica);
      return replica;
    },
    stopAll: async () => {
      await Promise.all(replicas.splice(0).map((replica) => replica.stop()));
    },
    closers,
  };
}
