import { describe, expect, it } from 'vitest';
import { InProcessReportQueue } from '../../../src/reports/queue/in-process-report-queue.js';
import { SharedReportQueue } from '../../../src/reports/queue/shared-report-queue.js';
import { SlidingWindow } from '../../../src/simulator/sliding-window.js';
import { RateLimitedError } from '../../../src/ticketing/errors.js';
import type { EventReport } from '../../../src/ticketing/schemas.js';
import { useRedis } from '../../helpers/redis-server.js';
import { sleep } from '../../helpers/wait-for.js';

/*
 * One rule in two implementations: the in-process report queue (TypeScript) and the replicas'
 * shared queue (Lua in Redis) must both keep the report limit as a rolling window in which a slot
 * frees one window after its call finished. Both pass the same scenarios.
 */

const redis = useRedis();
const LIMIT = { limit: 2, windowMs: 300 };
let counter = 0;

/** Asks for a report and resolves once it is delivered. */
type Ask = (eventId: string) => Promise<void>;
type Fetch = (eventId: string) => Promise<EventReport>;

function inProcess(fetch: Fetch): Ask {
  const queue = new InProcessReportQueue({ ...LIMIT, cacheTtlMs: 1, fetchReport: (eventId) => fetch(eventId) });
  return async (eventId) => {
    await queue.request(eventId).result;
  };
}

/** Two replicas' queues on one BullMQ queue; asks alternate between them. */
function replicas(fetch: Fetch): Ask {
  const { port } = new URL(redis.url);
  const name = `contract-${++counter}`;
  const waiting = new Map<string, () => void>();
  const queues = [0, 1].map(() => {
    const queue = new SharedReportQueue<string>({
      connection: { host: '127.0.0.1', port: Number(port), db: 4 },
      name,
      limit: LIMIT,
      fetchReport: (eventId) => fetch(eventId),
      deliver: async (job) => waiting.get(job.delivery)?.(),
    });
    queue.start();
    redis.closers.push(() => queue.close());
    return queue;
  });
  let turn = 0;
  return async (eventId) => {
    const delivered = new Promise<void>((resolve) => waiting.set(eventId, resolve));
    await (queues[turn++ % 2] as SharedReportQueue<string>).submit(eventId, eventId);
    await delivered;
  };
}

// Wall-clock call durations: the shared queue's rolling window runs on the Redis server's clock.

describe.each([
  ['the in-process ReportQueue', inProcess],
  ['the replicas\u2019 SharedReportQueue', replicas],
])('%s keeps the report limit as a rolling window', (_, make) => {
  it('lets a rolling-window service see at most the limit, even when the first calls are slow to arrive', async () => {
    const service = new SlidingWindow(LIMIT.limit, LIMIT.windowMs, Date.now());
    let calls = 0;
    let refused = 0;
    const ask = make(async (eventId) => {
      calls += 1;
      if (calls <= 2) await sleep(120);
      const taken = service.take(Date.now());
      if (!taken.allowed) {
        refused += 1;
        throw new RateLimitedError('report limit', { retryAfterMs: taken.resetMs, scope: 'report' });
      }
      return { eventName: eventId } as EventReport;
    });
    await Promise.all(Array.from({ length: 6 }, (_, i) => ask(`evt_${i}`)));
    expect(refused).toBe(0);
    expect(service.mostInAWindow).toBeLessThanOrEqual(LIMIT.limit);
  });

  it('starts a call no sooner than a window after the call whose slot it takes finished', async () => {
    const calls: { start: number; end: number }[] = [];
    const ask = make(async (eventId) => {
      const call = { start: Date.now(), end: 0 };
      calls.push(call);
      await sleep(90);
      call.end = Date.now();
      return { eventName: eventId } as EventReport;
    });
    await Promise.all(Array.from({ length: 4 }, (_, i) => ask(`evt_${i}`)));
    const byStart = [...calls].sort((a, b) => a.start - b.start);
    const ends = [...calls].map((call) => call.end).sort((a, b) => a - b);
    // The third and fourth calls each took a slot freed by one of the first two.
    expect((byStart[2] as { start: number }).start).toBeGreaterThanOrEqual((ends[0] as number) + LIMIT.windowMs - 20);
    expect((byStart[3] as { start: number }).start).toBeGreaterThanOrEqual((ends[1] as number) + LIMIT.windowMs - 20);
  });
});
