import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BudgetSnapshot } from '../ticketing/budget.js';
import { singleFlight, withinDeadline } from './within-deadline.js';

/** What the metrics read on each scrape. */
export interface MetricSources {
  budget(): Promise<BudgetSnapshot>;
  /** Report requests waiting: this process's queue, or the shared one. */
  reportsWaiting(): number | Promise<number>;
}

export interface MetricsOptions {
  /**
   * Longest a scrape waits for one source (a Redis that is down or slow): past it, that gauge has
   * no sample in this scrape and `eventops_metric_collector_errors_total` counts it. @default 1000
   */
  collectTimeoutMs?: number;
  /** Longest a whole scrape may take before `/metrics` answers 503. @default 1800 */
  scrapeTimeoutMs?: number;
}

/**
 * The bot's Prometheus metrics (prom-client), in a registry of its own: API requests by endpoint
 * and status, 429s, the budget left, the report queue, digests, Slack API errors, command latency.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly apiRequests = new Counter({
    name: 'eventops_api_requests_total',
    help: 'Requests to the Event Ticketing Service by endpoint and HTTP status (0: no answer)',
    labelNames: ['endpoint', 'status'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'eventops_api_rate_limited_total',
    help: '429 answers from the Event Ticketing Service by limit',
    labelNames: ['scope'] as const,
    registers: [this.registry],
  });
  readonly reportWait = new Histogram({
    name: 'eventops_report_wait_seconds',
    help: 'From a report request to its answer (queue wait included)',
    buckets: [0.5, 1, 5, 15, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });
  readonly digests = new Counter({
    name: 'eventops_digests_total',
    help: 'Digest runs by outcome (sent, skipped-empty, already-sent, failed, channel-failing, ...)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly watchChecks = new Counter({
    name: 'eventops_watch_checks_total',
    help: "Checks of watched events, by where the report came from (a watch's spare slot, or a person's report)",
    labelNames: ['source'] as const,
    registers: [this.registry],
  });
  readonly watchAlerts = new Counter({
    name: 'eventops_watch_alerts_total',
    help: 'Watch alerts posted, by condition kind',
    labelNames: ['condition'] as const,
    registers: [this.registry],
  });
  readonly watchTurns = new Counter({
    name: 'eventops_watch_turns_total',
    help: "The watch scheduler's turns on this process, by outcome (checked, idle, turn-elsewhere, claimed-elsewhere, no-spare-slot, failed, held, error)",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly watchCheckInterval = new Histogram({
    name: 'eventops_watch_check_interval_seconds',
    help: 'Time between two checks of one watched event',
    buckets: [30, 60, 120, 300, 600, 900, 1800, 3600, 7200],
    registers: [this.registry],
  });
  readonly slackErrors = new Counter({
    name: 'eventops_slack_api_errors_total',
    help: 'Slack Web API calls that failed, by what was attempted and Slack error code',
    labelNames: ['call', 'error'] as const,
    registers: [this.registry],
  });
  readonly commandLatency = new Histogram({
    name: 'eventops_command_duration_seconds',
    help: 'From a Slack request arriving to its listener finishing, by kind',
    labelNames: ['kind'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly collectorErrors = new Counter({
    name: 'eventops_metric_collector_errors_total',
    help: 'Scrapes in which a gauge could not be read in time (its sample is left out), by collector',
    labelNames: ['collector'] as const,
    registers: [this.registry],
  });
  readonly #scrapeTimeoutMs: number;
  /** Refreshes the gauges read from other parts of the bot (Redis, in replicas); never rejects. */
  readonly #collect: () => Promise<void>;

  constructor(sources: MetricSources, options: MetricsOptions = {}) {
    const collectTimeoutMs = options.collectTimeoutMs ?? 1_000;
    this.#scrapeTimeoutMs = options.scrapeTimeoutMs ?? 1_800;
    // The process's own: resident memory, heap, event-loop lag, open handles.
    collectDefaultMetrics({ register: this.registry });
    // Each source is read once at a time and for a bounded time: a scrape never waits on Redis.
    // They are read before the registry is (not in prom-client's `collect`), so that the error
    // count of this very scrape is in its text.
    const gauge = (name: string, help: string, collector: string, read: () => number | Promise<number>) => {
      const readOnce = singleFlight(read);
      const metric = new Gauge({ name, help, registers: [this.registry] });
      return async () => {
        try {
          metric.set(await withinDeadline(readOnce(), collectTimeoutMs, `The ${collector} metric`));
        } catch {
          // No sample rather than a stale or made-up one; the counter says why it is missing.
          metric.remove({});
          this.collectorErrors.inc({ collector });
        }
      };
    };
    const collectors = [
      gauge(
        'eventops_budget_remaining',
        "Requests the bot may still send in the organization's current window (one figure for all replicas on Redis)",
        'budget',
        async () => (await sources.budget()).remaining,
      ),
      gauge(
        'eventops_report_queue_depth',
        'Report requests waiting for admission (across replicas when the queue is shared)',
        'report_queue',
        () => sources.reportsWaiting(),
      ),
    ];
    this.#collect = async () => {
      await Promise.all(collectors.map((collect) => collect()));
    };
  }

  /**
   * The Prometheus text of every metric, the gauges read afresh (what `/metrics` serves), or a
   * rejection once the scrape's deadline passes.
   */
  scrape(): Promise<string> {
    const scraped = this.#collect().then(() => this.registry.metrics());
    return withinDeadline(scraped, this.#scrapeTimeoutMs, 'The metrics scrape');
  }
}
