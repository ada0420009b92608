import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rateLimitHeaders, retryAfterValue } from '../../src/simulator/limits.js';
import { errorBody } from '../../src/simulator/routes.js';
import { SlidingWindow } from '../../src/simulator/sliding-window.js';
import { systemClock } from '../../src/time/clock.js';
import { sleep } from '../helpers/wait-for.js';

/**
 * The simulator with a rolling-window report limit: a loopback proxy in front of it that counts
 * `GET /v1/events/{id}/report` in the simulator's own `SlidingWindow` (at most `limit` in any
 * window-long span), answers 429 past it, and writes that window's `X-RateLimit-*` on every report
 * answer. Everything else passes through untouched. (The simulator's own report limit is fixed-window
 * only; start it with a limit this proxy never reaches.)
 */
export interface RollingReportService {
  url: string;
  stats(): { admitted: number; rateLimited: number; mostInAWindow: number };
  close(): Promise<void>;
}

export interface RollingReportOptions {
  limit: number;
  windowMs: number;
  /** The first `count` report requests take `ms` longer on their way in (a slow path, a budget wait). */
  slowFirst?: { count: number; ms: number };
}

const format = { retryAfterFormat: 'seconds', resetFormat: 'ms' } as const;

export async function startRollingReportService(
  target: string,
  options: RollingReportOptions,
): Promise<RollingReportService> {
  const window = new SlidingWindow(options.limit, options.windowMs, Date.now());
  let admitted = 0;
  let rateLimited = 0;
  let reportsSeen = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? '/';
    const isReport = /^\/v1\/events\/[^/]+\/report$/.test(path.split('?')[0] ?? '');
    let state: ReturnType<SlidingWindow['take']> | undefined;
    if (isReport) {
      reportsSeen += 1;
      // A slow path: wall time, as the service keeps its window on the wall clock.
      if (options.slowFirst && reportsSeen <= options.slowFirst.count) await sleep(options.slowFirst.ms);
      state = window.take(Date.now());
      if (!state.allowed) {
        rateLimited += 1;
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': retryAfterValue(state.resetMs, format, systemClock),
          ...rateLimitHeaders(state, format, systemClock),
        });
        res.end(JSON.stringify(errorBody(429, 'rate_limit_exceeded', `Report limit of ${state.limit} exceeded`)));
        return;
      }
      admitted += 1;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
    }
    const answer = await fetch(new URL(path, target), {
      method: req.method ?? 'GET',
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) out[name] = value;
    });
    res.writeHead(answer.status, { ...out, ...(state ? rateLimitHeaders(state, format, systemClock) : {}) });
    res.end(body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ admitted, rateLimited, mostInAWindow: window.mostInAWindow }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
