import type { KeyValueStore } from '../store/key-value-store.js';
import type { ApiObserver } from '../ticketing/client.js';
import type { Clock } from '../time/clock.js';
import { healthRoutes, Readiness, type ReadinessOptions } from './health.js';
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
}

/** Readiness, metrics and their routes. The sources are read on each scrape, once the bot is built. */
export function buildObservability(options: {
  store: KeyValueStore;
  clock: Clock;
  sources: MetricSources;
  deadlines?: ObservabilityDeadlines | undefined;
}): Observability {
  const { probeTimeoutMs, ...metricsOptions } = options.deadlines ?? {};
  const readiness = new Readiness({
    store: options.store,
    clock: options.clock,
    ...(probeTimeoutMs === undefined ? {} : { probeTimeoutMs }),
  });
  const metrics = new Metrics(options.sources, metricsOptions);
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
  };
}
