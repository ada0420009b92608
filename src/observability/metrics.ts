import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BudgetSnapshot } from '../ticketing/budget.js';

/** What the metrics read on each scrape. */
export interface MetricSources {
  budget(): Promise<BudgetSnapshot>;
  /** Report requests waiting: this process's queue, or the shared one. */
  reportsWaiting(): number | Promise<number>;
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

  constructor(sources: MetricSources) {
    // The process's own: resident memory, heap, event-loop lag, open handles.
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'eventops_budget_remaining',
      help: "Requests the bot may still send in the organization's current window (one figure for all replicas on Redis)",
      registers: [this.registry],
      async collect() {
        this.set((await sources.budget()).remaining);
      },
    });
    new Gauge({
      name: 'eventops_report_queue_depth',
      help: 'Report requests waiting for admission (across replicas when the queue is shared)',
      registers: [this.registry],
      async collect() {
        this.set(await sources.reportsWaiting());
      },
    });
  }
}
