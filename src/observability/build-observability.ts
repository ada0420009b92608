import { LatePart } from '../lifecycle/late-part.js';
import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { ApiObserver } from '../ticketing/client.js';
import type { Clock } from '../time/clock.js';
import { healthRoutes, Readiness, type ReadinessOptions, startHealthServer } from './health.js';
import { type MetricSources, Metrics, type MetricsOptions } from './metrics.js';

/** How long readiness and a scrape wait for the store (see `ReadinessOptions`, `MetricsOptions`). */
export type ObservabilityDeadlines = Pick<ReadinessOptions, 'probeTimeoutMs'> & MetricsOptions;

export interface Observability {
  readiness: Readiness;
  metrics: Metrics;
  /** `/healthz`, `/readyz` and `/metrics`, for whichever server answers HTTP. */
  routes: ReturnType<typeof healthRoutes>;
  /** What the ticketing client tells them: each answer counts, and proves the service is reachable. */
  apiObserver(): ApiObserver;
  /** What the watches tell them: checks, the time between an event's checks, alerts, turns. */
  watchObserver(): {
    onCheck(source: string, sinceMs: number | undefined): void;
    onAlert(condition: string): void;
    onTurn(outcome: string): void;
  };
  /** What the digests tell them: each digest's outcome. */
  digestObserver(): { onOutcome(outcome: { kind: string }): void };
  /** Names what a scrape reads, once it is built (it reports to the metrics, so it comes after them). */
  measure(sources: MetricSources): void;
}

/**
 * Readiness, metrics and their routes. The sources are read on each scrape; they are named later
 * (`measure`), because the client and the reports they read are built with this observer.
 */
export function buildObservability(options: {
  store: KeyValueStore;
  clock: Clock;
  deadlines?: ObservabilityDeadlines | undefined;
}): Observability {
  const { probeTimeoutMs, ...metricsOptions } = options.deadlines ?? {};
  const readiness = new Readiness({
    store: options.store,
    clock: options.clock,
    ...(probeTimeoutMs === undefined ? {} : { probeTimeoutMs }),
  });
  const sources = new LatePart<MetricSources>('What the metrics read');
  const metrics = new Metrics(
    { budget: () => sources.get().budget(), reportsWaiting: () => sources.get().reportsWaiting() },
    metricsOptions,
  );
  return {
    readiness,
    metrics,
    routes: healthRoutes(readiness, metrics),
    apiObserver: () => ({
      response: (endpoint, status) => {
        metrics.apiRequests.inc({ endpoint, status: String(status) });
        readiness.answered(status);
      },
      rateLimited: (scope) => metrics.rateLimited.inc({ scope }),
    }),
    watchObserver: () => ({
      onCheck: (source, sinceMs) => {
        metrics.watchChecks.inc({ source });
        if (sinceMs !== undefined) metrics.watchCheckInterval.observe(sinceMs / 1000);
      },
      onAlert: (condition) => metrics.watchAlerts.inc({ condition }),
      onTurn: (outcome) => metrics.watchTurns.inc({ outcome }),
    }),
    digestObserver: () => ({ onOutcome: (outcome) => metrics.digests.inc({ outcome: outcome.kind }) }),
    measure: (measured) => {
      sources.set(measured);
    },
  };
}

/**
 * Socket Mode has no HTTP receiver: `/healthz`, `/readyz` and `/metrics` get a small port of their
 * own. None when there is an HTTP receiver (it serves them) or no port was asked for: its close does nothing.
 */
export async function startHealthPort(
  routes: Observability['routes'],
  options: { socketMode: boolean; port: number | undefined; host: string | undefined; logger: Logger },
): Promise<{ close(): Promise<void> }> {
  if (!options.socketMode || options.port === undefined) return { close: async () => {} };
  const health = await startHealthServer(routes, options.port, options.host);
  options.logger.info('Health and metrics listening', { port: health.port });
  return { close: () => new Promise<void>((resolve) => health.server.close(() => resolve())) };
}
