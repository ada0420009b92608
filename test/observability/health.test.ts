import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { healthRoutes, Readiness, startHealthServer } from '../../src/observability/health.js';
import { Metrics } from '../../src/observability/metrics.js';
import type { KeyValueStore } from '../../src/store/key-value-store.js';
import type { BudgetSnapshot } from '../../src/ticketing/budget.js';

const never = <T>() => new Promise<T>(() => undefined);
const budget = (remaining: number) => ({ remaining }) as BudgetSnapshot;
const clock = { now: () => Date.now() };

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe('Readiness', () => {
  it('counts a store that does not answer in time as failing, probing it once at a time', async () => {
    let probes = 0;
    const store = {
      get: () => {
        probes += 1;
        return never();
      },
    } as unknown as KeyValueStore;
    const readiness = new Readiness({ store, clock, probeTimeoutMs: 100 });
    const started = performance.now();
    const reports = await Promise.all([readiness.check(), readiness.check(), readiness.check()]);
    expect(performance.now() - started).toBeLessThan(1_000);
    for (const report of reports) expect(report).toMatchObject({ ready: false, store: 'failing' });
    await readiness.check();
    expect(probes).toBe(1);
  });
});

describe('Metrics', () => {
  it('leaves out a gauge whose source hangs or fails, counts it, and reads it again once it answers', async () => {
    let release: ((snapshot: BudgetSnapshot) => void) | undefined;
    let budgetReads = 0;
    let queueFails = true;
    const metrics = new Metrics(
      {
        budget: () => {
          budgetReads += 1;
          return new Promise<BudgetSnapshot>((resolve) => {
            release = resolve;
          });
        },
        reportsWaiting: async () => {
          if (queueFails) throw new Error('Connection is closed.');
          return 4;
        },
      },
      { collectTimeoutMs: 100 },
    );
    const started = performance.now();
    const [first, second] = await Promise.all([metrics.scrape(), metrics.scrape()]);
    expect(performance.now() - started).toBeLessThan(1_000);
    for (const text of [first, second]) {
      expect(text).not.toMatch(/^eventops_budget_remaining /m);
      expect(text).not.toMatch(/^eventops_report_queue_depth /m);
      expect(text).toContain('# TYPE eventops_budget_remaining gauge');
    }
    expect(second).toMatch(/^eventops_metric_collector_errors_total\{collector="budget"\} 2$/m);
    expect(second).toMatch(/^eventops_metric_collector_errors_total\{collector="report_queue"\} 2$/m);
    // The hanging read was shared, not repeated.
    expect(budgetReads).toBe(1);

    release?.(budget(42));
    queueFails = false;
    const recovered = await metrics.scrape();
    expect(recovered).toMatch(/^eventops_budget_remaining 42$/m);
    expect(recovered).toMatch(/^eventops_report_queue_depth 4$/m);
  });
});

describe('startHealthServer', () => {
  const routes = healthRoutes(
    new Readiness({ store: { get: async () => undefined } as unknown as KeyValueStore, clock }),
    new Metrics({ budget: async () => budget(1), reportsWaiting: () => 0 }),
  );

  it('listens on the host it is given', async () => {
    const { server, port } = await startHealthServer(routes, 0, '127.0.0.1');
    servers.push(server);
    expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });

  it('listens on every interface without one, as the HTTP receiver does', async () => {
    const { server } = await startHealthServer(routes, 0);
    servers.push(server);
    expect(['::', '0.0.0.0']).toContain((server.address() as AddressInfo).address);
  });
});
