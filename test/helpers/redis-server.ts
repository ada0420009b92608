import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** Debian's redis-server (`.ci/run` installs it when missing). */
const REDIS = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** A real redis-server on loopback, on a free port, with nothing written to disk; stops with the tests. */
export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS)) throw new Error(`redis-server is not at ${REDIS}: .ci/run installs the Debian package`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    REDIS,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100 && !(await accepts(port)); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * A redis-server for the whole test file: started before its tests, stopped after them, once the
 * things `closers` collected (connections to it) are closed. Read `.url` inside tests.
 */
export function useRedis(): { readonly url: string; closers: (() => Promise<unknown>)[] } {
  let server: RedisServer | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await server?.stop();
  });
  return {
    get url() {
      if (!server) throw new Error('redis-server is not started yet');
      return server.url;
    },
    closers,
  };
}
