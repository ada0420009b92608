import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { waitFor } from './wait-for.js';

/** Debian's redis-server (`.ci/run` installs it when missing). */
const REDIS = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  /** The loopback port it listens on (the TLS port with `tls`). */
  port: number;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** `requirepass`: the URL then carries it, raw, as an operator would paste it. */
  password?: string;
  /** Serve TLS only, with this certificate and key (PEM files): the URL is `rediss://`. */
  tls?: { certFile: string; keyFile: string };
  /** The port tried first, in place of a free one (a test of this helper holds it to prove the retry). */
  firstPort?: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A real redis-server on loopback, on a free port, with nothing written to disk; stops with the tests. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!existsSync(REDIS)) throw new Error(`redis-server is not at ${REDIS}: .ci/run installs the Debian package`);
  // Redis takes no port 0 and names none: a free port is picked, and picked again should another
  // process take it first (the redis-server then exits at once).
  for (let attempt = 1; ; attempt += 1) {
    const port = attempt === 1 && options.firstPort !== undefined ? options.firstPort : await freePort();
    const child = spawnRedis(port, options);
    const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
    // Its own word that it listens, not a connection to the port (which another process may hold).
    let said = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      said = (said + chunk.toString()).slice(-4_096);
    });
    const started = await waitFor(
      () =>
        child.exitCode !== null || child.signalCode !== null
          ? 'exited'
          : /Ready to accept connections/.test(said) && 'ready',
      {
        what: `redis-server to accept connections on port ${port}`,
        intervalMs: 50,
      },
    ).catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
    if (started === 'ready') return running(child, port, options);
    await exited;
    if (attempt >= 5) throw new Error(`redis-server exited at start ${attempt} times (ports taken?)`);
  }
}

function spawnRedis(port: number, options: RedisServerOptions): ChildProcess {
  const listen = options.tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', options.tls.certFile]
        .concat(['--tls-key-file', options.tls.keyFile, '--tls-ca-cert-file', options.tls.certFile])
        .concat(['--tls-auth-clients', 'no'])
    : ['--port', String(port)];
  return spawn(
    REDIS,
    [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
      // Passed as an argument, as redis.conf would hold it; the test's own throwaway password.
      .concat(options.password ? ['--requirepass', options.password] : []),
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
}

function running(child: ChildProcess, port: number, options: RedisServerOptions): RedisServer {
  const auth = options.password ? `:${options.password}@` : '';
  return {
    url: `${options.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}`,
    port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/**
 * A redis-server for the whole test file: started before its tests, stopped after them, once the
 * things `closers` collected (connections to it) are closed. Read `.url` inside tests.
 */
export function useRedis(options: RedisServerOptions | (() => RedisServerOptions) = {}): {
  readonly url: string;
  closers: (() => Promise<unknown>)[];
} {
  let server: RedisServer | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    server = await startRedis(typeof options === 'function' ? options() : options);
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

/**
 * A throwaway self-signed certificate for 127.0.0.1 in `dir` (`cert.pem`, `key.pem`): trusted by a
 * process only through NODE_EXTRA_CA_CERTS, as a managed Redis's own CA is.
 */
export function throwawayCertificate(dir: string): { certFile: string; keyFile: string } {
  const cert = { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') };
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1']
      .concat(['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'])
      .concat(['-keyout', cert.keyFile, '-out', cert.certFile]),
    { stdio: 'ignore' },
  );
  return cert;
}
