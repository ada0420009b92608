import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fakeSlackToken } from './fake-tokens.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.ts', import.meta.url));
/** The same, as plain JavaScript for a process without tsx (a data: URL needs no file). */
const EXIT_WITH_PARENT_JS = `data:text/javascript,${encodeURIComponent(
  "process.stdin.on('end',()=>process.exit(0));process.stdin.on('error',()=>process.exit(0));process.stdin.resume();",
)}`;

/** One bot process, as `npm start` runs it (from source through tsx), with its JSON log lines. */
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
  /** Run the built `dist/main.js` (as the image does) rather than the sources through tsx. @default 'source' */
  build?: 'source' | 'dist';
  env: Record<string, string>;
  signingSecret: string;
}

/** Starts `src/main.ts` (or the built `dist/main.js`) in a child process with `env` (and nothing of this process's secrets). */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  const args =
    options.build === 'dist'
      ? ['--import', EXIT_WITH_PARENT_JS, 'dist/main.js']
      : ['--import', 'tsx', '--import', EXIT_WITH_PARENT, 'src/main.ts'];
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
  const listening = await waitForLog(
    (line) => line.msg === 'eventops is listening for Slack on POST /slack/events',
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
