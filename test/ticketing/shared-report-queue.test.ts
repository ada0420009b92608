import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/ticketing/errors.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import {
  type ReportOutcome,
  SharedReportQueue,
  type SharedReportQueueOptions,
} from '../../src/ticketing/shared-report-queue.js';
import { useRedis } from '../helpers/redis-server.js';

const redis = useRedis();
let counter = 0;

interface Replicas {
  queues: SharedReportQueue<string>[];
  /** When each fetch started, in order. */
  starts: number[];
  delivered: { delivery: string; outcome: ReportOutcome }[];
}

/** `count` replicas' queues on one BullMQ queue (a fresh name), each with its worker running. */
function replicas(
  count: number,
  fetch: (eventId: string) => Promise<EventReport>,
  options: Partial<SharedReportQueueOptions<string>> = {},
): Replicas {
  const { port } = new URL(redis.url);
  const name = `test-reports-${++counter}`;
  const result: Replicas = { queues: [], starts: [], delivered: [] };
  for (let i = 0; i < count; i += 1) {
    const queue = new SharedReportQueue<string>({
      connection: { host: '127.0.0.1', port: Number(port), db: 5 },
      name,
      limit: { limit: 2, windowMs: 1_000 },
      fetchReport: (eventId) => {
        result.starts.push(Date.now());
        return fetch(eventId);
      },
      deliver: async (job, outcome) => {
        result.delivered.push({ delivery: job.delivery, outcome });
      },
      ...options,
    });
    queue.start();
    redis.closers.push(() => queue.close());
    result.queues.push(queue);
  }
  return result;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const report = (eventId: string): Promise<EventReport> => Promise.resolve({ eventName: eventId } as EventReport);

describe('SharedReportQueue (BullMQ on a real redis-server)', () => {
  it('keeps one report limit for all replicas: 2 a window between two of them, not 2 each', async () => {
    const r = replicas(2, report);
    for (let i = 0; i < 5; i += 1) await (r.queues[i % 2] as SharedReportQueue<string>).submit(`evt_${i}`, `d${i}`);
    await until(() => r.delivered.length === 5);
    const starts = [...r.starts].sort((a, b) => a - b);
    // Any third fetch waits for the window of the first of the two before it.
    for (let i = 0; i + 2 < starts.length; i += 1) {
      expect((starts[i + 2] as number) - (starts[i] as number)).toBeGreaterThanOrEqual(900);
    }
    expect(r.delivered.map((each) => each.delivery).sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
  });

  it('stops every replica when the report headers say the window is spent, until it resets', async () => {
    const r = replicas(2, report);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const observedAt = Date.now();
    (r.queues[0] as SharedReportQueue<string>).observe({
      limit: 3,
      remaining: 0,
      resetAt: observedAt + 800,
      observedAt,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await (r.queues[1] as SharedReportQueue<string>).submit('evt_a', 'a');
    await until(() => r.delivered.length === 1);
    expect((r.starts[0] as number) - observedAt).toBeGreaterThanOrEqual(700);
  });

  it('puts a report that met the report limit back in the queue, and fetches it once the wait is over', async () => {
    let calls = 0;
    const r = replicas(1, async (eventId) => {
      calls += 1;
      if (calls === 1) throw new RateLimitedError('report limit', { retryAfterMs: 400, scope: 'report' });
      return report(eventId);
    });
    await (r.queues[0] as SharedReportQueue<string>).submit('evt_b', 'b');
    await until(() => r.delivered.length === 1);
    expect(r.delivered[0]?.outcome.kind).toBe('report');
    expect(r.starts).toHaveLength(2);
    expect((r.starts[1] as number) - (r.starts[0] as number)).toBeGreaterThanOrEqual(350);
  });
});
