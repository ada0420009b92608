import { describe, expect, it } from 'vitest';
import type { ReportOutcome } from '../../../src/reports/queue/report-queue.js';
import type { SharedReportQueueOptions } from '../../../src/reports/queue/shared-report-options.js';
import { SharedReportQueue } from '../../../src/reports/queue/shared-report-queue.js';
import { SlidingWindow } from '../../../src/simulator/sliding-window.js';
import { RateLimitedError } from '../../../src/ticketing/errors.js';
import type { EventReport } from '../../../src/ticketing/schemas.js';
import { aheadClock } from '../../helpers/clocks.js';
import { useRedis } from '../../helpers/redis-server.js';
import { sleep, waitFor } from '../../helpers/wait-for.js';
import { commandsProcessed, redisCommand } from '../../replicas/redis-command.js';

const redis = useRedis();
let counter = 0;

interface Replicas {
  /** The BullMQ queue's name (fresh for each call unless given). */
  name: string;
  queues: SharedReportQueue<string>[];
  /** When each fetch started, in order. */
  starts: number[];
  delivered: { delivery: string; outcome: ReportOutcome }[];
}

/** `count` replicas' queues on one BullMQ queue (a fresh name), each with its worker running unless `started` is false. */
function replicas(
  count: number,
  fetch: (eventId: string) => Promise<EventReport>,
  {
    started = true,
    db = 5,
    ...options
  }: Partial<SharedReportQueueOptions<string>> & { started?: boolean; db?: number } = {},
): Replicas {
  const { port } = new URL(redis.url);
  const name = options.name ?? `test-reports-${++counter}`;
  const result: Replicas = { name, queues: [], starts: [], delivered: [] };
  for (let i = 0; i < count; i += 1) {
    const queue = new SharedReportQueue<string>({
      connection: { host: '127.0.0.1', port: Number(port), db },
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
    if (started) queue.start();
    redis.closers.push(() => queue.close());
    result.queues.push(queue);
  }
  return result;
}

const until = (check: () => boolean, timeoutMs = 10_000) => waitFor(check, { timeoutMs });

const report = (eventId: string): Promise<EventReport> => Promise.resolve({ eventName: eventId } as EventReport);
const queueOf = (r: Replicas, index = 0) => r.queues[index] as SharedReportQueue<string>;

describe('SharedReportQueue (BullMQ on a real redis-server)', () => {
  it('keeps one report limit for all replicas: 2 a window between two of them, not 2 each', async () => {
    const r = replicas(2, report, { limit: { limit: 2, windowMs: 400 } });
    for (let i = 0; i < 5; i += 1) await (r.queues[i % 2] as SharedReportQueue<string>).submit(`evt_${i}`, `d${i}`);
    await until(() => r.delivered.length === 5);
    const starts = [...r.starts].sort((a, b) => a - b);
    // Any third fetch waits for the window of the first of the two before it.
    for (let i = 0; i + 2 < starts.length; i += 1) {
      expect((starts[i + 2] as number) - (starts[i] as number)).toBeGreaterThanOrEqual(380);
    }
    expect(r.delivered.map((each) => each.delivery).sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
  });

  it('stops every replica when the report headers say the window is spent, until it resets', async () => {
    const r = replicas(2, report);
    const observedAt = Date.now();
    (r.queues[0] as SharedReportQueue<string>).observe({
      limit: 3,
      remaining: 0,
      resetAt: observedAt + 400,
      observedAt,
    });
    // The headers are in Redis, for every replica, before the other one is asked.
    await waitFor(() => redisCommand(`${redis.url}/5`, 'HGET', `bull:${r.name}:rolling:state`, 'observedAt'), {
      what: 'the observation in Redis',
    });
    await (r.queues[1] as SharedReportQueue<string>).submit('evt_a', 'a');
    await until(() => r.delivered.length === 1);
    expect((r.starts[0] as number) - observedAt).toBeGreaterThanOrEqual(380);
  });

  it('puts a report that met the report limit back in the queue, and fetches it once the wait is over', async () => {
    let calls = 0;
    const r = replicas(1, async (eventId) => {
      calls += 1;
      if (calls === 1) throw new RateLimitedError('report limit', { retryAfterMs: 200, scope: 'report' });
      return report(eventId);
    });
    await (r.queues[0] as SharedReportQueue<string>).submit('evt_b', 'b');
    await until(() => r.delivered.length === 1);
    expect(r.delivered[0]?.outcome.kind).toBe('report');
    expect(r.starts).toHaveLength(2);
    expect((r.starts[1] as number) - (r.starts[0] as number)).toBeGreaterThanOrEqual(190);
  });

  it('never lets a rolling-window service see more than the limit: a slot frees one window after its call finished', async () => {
    const service = new SlidingWindow(2, 400, Date.now());
    let calls = 0;
    let refused = 0;
    const r = replicas(
      2,
      async (eventId) => {
        calls += 1;
        // The first two take 160 ms to reach the service (a wait for the budget, a slow path): wall
        // time, as the rolling window is kept by the Redis server's clock.
        if (calls <= 2) await sleep(160);
        const taken = service.take(Date.now());
        if (!taken.allowed) {
          refused += 1;
          throw new RateLimitedError('report limit', { retryAfterMs: taken.resetMs, scope: 'report' });
        }
        return report(eventId);
      },
      { limit: { limit: 2, windowMs: 400 } },
    );
    for (let i = 0; i < 6; i += 1) await queueOf(r, i % 2).submit(`evt_${i}`, `d${i}`);
    await until(() => r.delivered.length === 6, 20_000);
    expect(refused).toBe(0);
    expect(service.mostInAWindow).toBeLessThanOrEqual(2);
    expect(r.delivered.every((each) => each.outcome.kind === 'report')).toBe(true);
  });

  it('keeps N people informed for O(N) Redis commands a round, not a scan of the whole queue for each', async () => {
    const r = replicas(1, report, { started: false });
    const queue = queueOf(r);
    const ids: string[] = [];
    for (let i = 0; i < 100; i += 1) ids.push(await queue.submit(`evt_${i}`, `d${i}`));
    const before = await commandsProcessed(redis.url);
    const round = await Promise.all(ids.map((id) => queue.progress(id)));
    const cost = (await commandsProcessed(redis.url)) - before;
    expect(round.map((progress) => (progress.state === 'queued' ? progress.position : -1))).toEqual(
      ids.map((_, index) => index + 1),
    );
    expect(cost).toBeLessThan(2 * ids.length);
  });

  it('says a request lost to an eviction or a Redis flush is lost at the next look, never "queued" (nor "done")', async () => {
    // Every progress asked is a fresh look (none is shared): the next look is the next one asked.
    const r = replicas(1, report, { started: false, db: 6, progressSnapshotMs: 0 });
    const queue = queueOf(r);
    const kept = await queue.submit('evt_kept', 'k');
    const evicted = await queue.submit('evt_evicted', 'e');
    expect(await queue.progress(evicted)).toMatchObject({ state: 'queued', position: 2 });
    // Eviction takes a job's hash and may leave its id in the waiting list.
    await redisCommand(`${redis.url}/6`, 'DEL', `bull:${r.name}:${evicted}`);
    expect(await queue.progress(evicted)).toMatchObject({ state: 'lost' });
    expect(await queue.progress(kept)).toMatchObject({ state: 'queued', position: 1 });
    await redisCommand(`${redis.url}/6`, 'FLUSHDB');
    expect(await queue.progress(kept)).toMatchObject({ state: 'lost' });
  });

  it('tells a person whose job failed for good (Redis refusing the slot script) that it was not fetched, never "queued"', async () => {
    const r = replicas(1, report, {
      started: false,
      db: 8,
      progressSnapshotMs: 50,
      retryDelayMs: 50,
      // Room in BullMQ's limiter for all three attempts (it counts each start).
      limit: { limit: 3, windowMs: 1_000 },
    });
    const queue = queueOf(r);
    const id = await queue.submit('evt_refused', 'x');
    // The rolling slots' key of the wrong type: every take fails, as a read-only or full Redis would.
    await redisCommand(`${redis.url}/8`, 'SET', `bull:${r.name}:rolling:held`, 'not a sorted set');
    queue.start();
    // Never done on the way: every look at it fails the test if it is.
    const progress = await waitFor(
      async () => {
        const now = await queue.progress(id);
        expect(now.state).not.toBe('done');
        return now.state === 'lost' && now;
      },
      { what: 'the job to be lost', timeoutMs: 15_000, intervalMs: 20 },
    );
    expect(progress).toMatchObject({ state: 'lost' });
    expect(r.delivered).toHaveLength(0);
  });

  it('tries a job again after a passing Redis error, and delivers it', async () => {
    const r = replicas(1, report, { started: false, db: 9, retryDelayMs: 50 });
    const queue = queueOf(r);
    const id = await queue.submit('evt_retry', 'y');
    await redisCommand(`${redis.url}/9`, 'SET', `bull:${r.name}:rolling:held`, 'not a sorted set');
    queue.start();
    // Its first attempt has failed (BullMQ keeps the reason on the job) before Redis recovers.
    await waitFor(() => redisCommand(`${redis.url}/9`, 'HGET', `bull:${r.name}:${id}`, 'failedReason'), {
      what: 'the first attempt to fail',
    });
    await redisCommand(`${redis.url}/9`, 'DEL', `bull:${r.name}:rolling:held`);
    await until(() => r.delivered.length === 1, 10_000);
    expect(r.delivered[0]?.outcome.kind).toBe('report');
  });

  it('gives up on a request still waiting at its deadline: out of the queue, and the person is told why', async () => {
    const clock = aheadClock();
    const r = replicas(1, report, { started: false, deadlineMs: 300, clock });
    const queue = queueOf(r);
    const id = await queue.submit('evt_late', 'l');
    expect(await queue.progress(id)).toMatchObject({ state: 'queued', position: 1 });
    clock.advance(400);
    const progress = await queue.progress(id);
    expect(progress).toMatchObject({ state: 'expired' });
    expect(progress.state === 'expired' && progress.error).toMatchObject({ code: 'cancelled' });
    expect(await queue.waiting()).toBe(0);
  });

  it('a replica that takes a request past its deadline (its asker died) tells the person instead of fetching', async () => {
    // Asked an hour ago, through a replica that is gone.
    const asker = replicas(1, report, { started: false, clock: { now: () => Date.now() - 3_600_000 } });
    await queueOf(asker).submit('evt_old', 'o');
    const taker = replicas(1, report, { name: asker.name });
    await until(() => taker.delivered.length === 1);
    expect(taker.starts).toHaveLength(0);
    const outcome = taker.delivered[0]?.outcome;
    expect(outcome?.kind === 'failed' && outcome.error).toMatchObject({ code: 'cancelled' });
  });

  it('never calls a request lost once another replica has answered it, even when Redis was flushed meanwhile', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asker = replicas(1, report, { started: false, db: 7 });
    const taker = replicas(
      1,
      async (eventId) => {
        await gate;
        return report(eventId);
      },
      { name: asker.name, db: 7 },
    );
    const id = await queueOf(asker).submit('evt_flushed', 'f');
    await until(() => taker.starts.length === 1);
    await redisCommand(`${redis.url}/7`, 'FLUSHDB');
    release();
    await until(() => taker.delivered.length === 1);
    expect(await queueOf(asker).progress(id)).toMatchObject({ state: 'done' });
  });
});

describe('SharedReportQueue closing', () => {
  it('closes at once on a Redis it never reached, instead of waiting for a connection', async () => {
    // Port 9 (discard), where nothing listens here, as the other tests of an unreachable server use.
    const queue = new SharedReportQueue<string>({
      connection: { host: '127.0.0.1', port: 9, db: 0 },
      limit: { limit: 2, windowMs: 1_000 },
      fetchReport: report,
      deliver: async () => undefined,
    });
    queue.start();
    await sleep(300);
    const started = Date.now();
    await queue.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('closed just as a fetched report goes out, marks the job completed: no replica fetches it again', async () => {
    let closing: Promise<void> | undefined;
    const r = replicas(1, report, {
      lockMs: 500,
      stalledIntervalMs: 200,
      deliver: async () => {
        // The replica is told to stop just after its report went out, as BullMQ marks the job done.
        setTimeout(() => {
          closing = queueOf(r).close();
        }, 0);
      },
    });
    const id = await queueOf(r).submit('evt_closing', 'c');
    await until(() => closing !== undefined);
    await closing;
    await until(() => r.starts.length === 1);
    // A second replica, looking for stalled jobs past the first one's hold, finds none to take.
    const other = replicas(1, report, { name: r.name, lockMs: 500, stalledIntervalMs: 200 });
    await sleep(1_000);
    expect(other.starts).toEqual([]);
    expect(await redisCommand(`${redis.url}/5`, 'ZSCORE', `bull:${r.name}:completed`, id)).not.toBeNull();
  });
});
