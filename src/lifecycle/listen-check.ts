import { createServer } from 'node:net';

/**
 * Listens on `port` of `host` and lets go at once: rejects with the listen's own error
 * (`EADDRINUSE`, `EACCES`) when it cannot. For a server that does not report its listen errors
 * (the local sandbox's page), so a port in use is said in words before it starts.
 */
export function listenCheck(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}
