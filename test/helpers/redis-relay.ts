import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { sleep } from './wait-for.js';

export interface RedisRelayOptions {
  /** Each answer from Redis is passed on this much later (a slow link, a refusal that takes its time). @default 0 */
  answerDelayMs?: number;
  /**
   * Sees each chunk the client sends before it is passed on, with the connection's number (1 for
   * the first); the chunk waits for the promise, and is dropped if the connection is gone by then.
   */
  onClientData?: (chunk: Buffer, connection: number) => void | Promise<void>;
}

export interface RedisRelay {
  /** Loopback port the relay listens on (bound on port 0). */
  port: number;
  /** How many connections were made through it: how often the client tried. */
  connections(): number;
  /** The far end goes away: every connection is dropped, and each new one at once, as while Redis restarts. */
  down(): void;
  /** The far end is back where it was (the relay held its port all along). */
  up(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP relay to the server on `port` (plain or TLS, bytes are passed as they are), which
 * counts connections (Redis does not count a failed TLS handshake) and can hold back answers or act
 * on what the client sends, so a test decides when a refusal reaches the client, or when Redis is
 * away and back.
 */
export async function startRedisRelay(port: number, options: RedisRelayOptions = {}): Promise<RedisRelay> {
  let connections = 0;
  let down = false;
  const open = new Set<Socket>();
  const relay = createServer((client) => {
    connections += 1;
    if (down) {
      client.destroy();
      return;
    }
    const connection = connections;
    const upstream = connect(port, '127.0.0.1');
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', end).on('close', () => {
        open.delete(socket);
        end();
      });
    }
    // In order, each chunk no sooner than its arrival plus the delay.
    let toClient = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      const due = Date.now() + (options.answerDelayMs ?? 0);
      toClient = toClient.then(async () => {
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait); // a slow link: time the answer spends on its way
        if (!client.destroyed) client.write(chunk);
      });
    });
    let toServer = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      toServer = toServer.then(async () => {
        await options.onClientData?.(chunk, connection);
        if (!upstream.destroyed) upstream.write(chunk);
      });
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    connections: () => connections,
    down: () => {
      down = true;
      for (const socket of open) socket.destroy();
    },
    up: () => {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        relay.close(() => resolve());
      }),
  };
}
