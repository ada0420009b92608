import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { Clock } from '../time/clock.js';
import type { Metrics } from './metrics.js';
import { singleFlight, withinDeadline } from './within-deadline.js';

export interface ReadinessReport {
  ready: boolean;
  store: 'ok' | 'failing';
  /** `ok`: the service accepted the API key recently; `rejected`: it answered 401/403 last. */
  api: 'ok' | 'rejected' | 'unknown' | 'stale';
}

export interface ReadinessOptions {
  store: KeyValueStore;
  clock: Clock;
  /** How long an API answer keeps the key counted as accepted. @default 5 minutes */
  freshMs?: number;
  /**
   * Longest the store may take to answer before it counts as failing; one probe at a time reaches
   * it however often `/readyz` is asked. @default 1000
   */
  probeTimeoutMs?: number;
}

/** Whether the bot can do its work: its store answers, and the service accepted its key recently. */
export class Readiness {
  readonly #probe: () => Promise<unknown>;
  readonly #probeTimeoutMs: number;
  readonly #clock: Clock;
  readonly #freshMs: number;
  #lastAnswer: { at: number; status: number } | undefined;

  constructor(options: ReadinessOptions) {
    const { store } = options;
    this.#probe = singleFlight(() => store.get('health:probe'));
    this.#probeTimeoutMs = options.probeTimeoutMs ?? 1_000;
    this.#clock = options.clock;
    this.#freshMs = options.freshMs ?? 5 * 60_000;
  }

  /** Feed every API answer here (status 0, no answer, is ignored). */
  answered(status: number): void {
    if (status > 0) this.#lastAnswer = { at: this.#clock.now(), status };
  }

  async check(): Promise<ReadinessReport> {
    const store = await withinDeadline(this.#probe(), this.#probeTimeoutMs, 'The store').then(
      () => 'ok' as const,
      () => 'failing' as const,
    );
    const last = this.#lastAnswer;
    const api = !last
      ? 'unknown'
      : last.status === 401 || last.status === 403
        ? 'rejected'
        : this.#clock.now() - last.at > this.#freshMs
          ? 'stale'
          : 'ok';
    return { ready: store === 'ok' && api === 'ok', store, api };
  }
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** `/healthz` (alive), `/readyz` (store and API key), `/metrics` (Prometheus text). */
export function healthRoutes(readiness: Readiness, metrics: Metrics): Record<string, RouteHandler> {
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  return {
    '/healthz': (_req, res) => json(res, 200, { alive: true }),
    '/readyz': (_req, res) => {
      readiness.check().then(
        (report) => json(res, report.ready ? 200 : 503, report),
        () => json(res, 503, { ready: false }),
      );
    },
    '/metrics': (_req, res) => {
      metrics.scrape().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        () => res.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      );
    },
  };
}

/**
 * The same routes on a small port of their own (Socket Mode has no HTTP receiver), on `host` (the
 * `HOST` setting) or, like the HTTP receiver without it, on every interface.
 */
export async function startHealthServer(
  routes: Record<string, RouteHandler>,
  port: number,
  host?: string | undefined,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const handler = req.method === 'GET' ? routes[new URL(req.url ?? '/', 'http://health').pathname] : undefined;
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (host) server.listen(port, host, resolve);
    else server.listen(port, resolve);
  });
  return { server, port: (server.address() as AddressInfo).port };
}
