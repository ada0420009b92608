import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { ReportCache } from '../../../src/reports/queue/report-cache.js';
import type { SharedReportQueueOptions } from '../../../src/reports/queue/shared-report-options.js';
import { SharedReportQueue } from '../../../src/reports/queue/shared-report-queue.js';
import { RateLimitedError } from '../../../src/ticketing/errors.js';
import type { EventReport } from '../../../src/ticketing/schemas.js';
import { startRedisRelay } from '../../helpers/redis-relay.js';
import { useRedis } from '../../helpers/redis-server.js';
import { sleep, waitFor } from '../../helpers/wait-for.js';
import { redisCommand } from '../../replicas/redis-command.js';

/**
 * The replicas' shared report queue takes people in turns, as the in-process one does
 * (report-queue-turns.test.ts): round robin by person across replicas, the places shown being the
 * order of the fetches; and background work gets a report only from a slot nobody waits for.
 */
const redis = useRedis();
let counter = 0;
const connection = () => ({ host: '127.0.0.1', port: Number(new URL(redis.url).port), db: 0 });

interface Replicas {
  name: string;
  queues: SharedReportQueue<string>[];
  /** The events fetched for people, in the order their calls started, from any replica. */
  fetched: string[];
  delivered: string[];
}

/** `count` replicas of one shared queue (a fresh name) on the test's redis-server. */
function replicas(
  count: number,
  {
    started = true,
    fetch,
    ...options
  }: Partial<SharedReportQueueOptions<string>> & {
    started?: boolean;
    fetch?: (eventId: string) => Promise<EventReport>;
  } = {},
): Replicas {
  const name = options.name ?? `turns-${++counter}`;
  const result: Replicas = { name, queues: [], fetched: [], delivered: [] };
  for (let i = 0; i < count; i += 1) {
    const queue = new SharedReportQueue<string>({
      connection: connection(),
      name,
      limit: { limit: 1, windowMs: 150 },
      // Ten of one person's wait at once here (a deployment refuses the sixth).
      waiting: { perPerson: 20 },
      fetchReport: (eventId) => {
        result.fetched.push(eventId);
        return fetch ? fetch(eventId) : report(eventId);
      },
      deliver: async (job) => {
        result.delivered.push(job.delivery);
      },
      ...options,
    });
    if (started) queue.start();
    redis.closers.push(() => queue.close());
    result.queues.push(queue);
  }
  return result;
}

const report = (eventId: string): Promise<EventReport> => Promise.resolve({ eventName: eventId } as EventReport);
const replica = (r: Replicas, index: number) => r.queues[index] as SharedReportQueue<string>;
/** Generous for a machine whose cores are all taken, yet a hang still ends the test. */
const BOUND_MS = 60_000;
const until = (check: () => boolean, what: string, timeoutMs = 15_000) => waitFor(check, { timeoutMs, what });
const key = (r: Replicas, suffix: string) => `bull:${r.name}:${suffix}`;

/** Asks on `queue` for each event in `ids` as `requester`; the job ids, by event. */
async function ask(queue: SharedReportQueue<string>, requester: string | undefined, ids: string[]) {
  const jobs = new Map<string, string>();
  for (const id of ids) jobs.set(id, await queue.submit(id, id, requester));
  return jobs;
}

/** Every event, by the place its person is shown (each asked on the replica that submitted it). */
async function byShownPlace(asked: { queue: SharedReportQueue<string>; jobs: Map<string, string> }[]) {
  const places: { eventId: string; position: number }[] = [];
  for (const { queue, jobs } of asked) {
    for (const [eventId, jobId] of jobs) {
      const progress = await queue.progress(jobId);
      expect(progress.state).toBe('queued');
      places.push({ eventId, position: progress.state === 'queued' ? progress.position : -1 });
    }
  }
  places.sort((a, b) => a.position - b.position);
  expect(places.map((place) => place.position)).toEqual(places.map((_, index) => index + 1));
  return places.map((place) => place.eventId);
}

describe('SharedReportQueue turns (two replicas on a real redis-server)', () => {
  it('fetches requests that were all put back at once with one priority (a replica died holding them), instead of each sending the next back for ever', async () => {
    const r = replicas(2, { started: false });
    // Three people, one request each: one round, one priority.
    const asked = [
      await ask(replica(r, 0), 'U0A', ['evt_a']),
      await ask(replica(r, 0), 'U0B', ['evt_b']),
      await ask(replica(r, 1), 'U0C', ['evt_c']),
    ];
    const ids = asked.flatMap((jobs) => [...jobs.values()]);
    // As BullMQ leaves them when each went back for want of a slot: first of their priority (arrival 0).
    const scores = (await redisCommand(
      redis.url,
      'ZRANGE',
      key(r, 'prioritized'),
      '0',
      '-1',
      'WITHSCORES',
    )) as string[];
    const priority = Math.floor(Number(scores[1]) / 2 ** 32);
    expect(priority).toBeGreaterThan(0);
    for (const id of ids) await redisCommand(redis.url, 'ZADD', key(r, 'prioritized'), String(priority * 2 ** 32), id);
    for (const queue of r.queues) queue.start();
    await until(() => r.fetched.length === 3, 'all three fetched');
    expect([...r.fetched].sort()).toEqual(['evt_a', 'evt_b', 'evt_c']);
  });

  it(
    'a replica dying with three reports in hand (started, slots held) and a fourth queued: the survivors take over and deliver each once',
    async () => {
      // The doomed replica reaches Redis through a relay: cutting it is its death as Redis sees it
      // (no renewal, no goodbye), forced at the moment chosen below, not at a time.
      const relay = await startRedisRelay(Number(new URL(redis.url).port));
      const name = `turns-${++counter}`;
      const limit = { limit: 3, windowMs: 300 };
      // Long enough that a living survivor never misses renewing its hold on a busy machine.
      const hold = { lockMs: 4_000, stalledIntervalMs: 500 };
      const doomedFetched: string[] = [];
      const doomedDelivered: string[] = [];
      let answerDoomed: () => void = () => {};
      const never = new Promise<void>((resolve) => {
        answerDoomed = resolve;
      });
      const doomed = new SharedReportQueue<string>({
        connection: { host: '127.0.0.1', port: relay.port, db: 0 },
        name,
        limit,
        ...hold,
        fetchReport: async (eventId) => {
          doomedFetched.push(eventId);
          await never;
          return report(eventId);
        },
        deliver: async (job) => {
          doomedDelivered.push(job.delivery);
        },
      });
      redis.closers.push(async () => {
        relay.up();
        answerDoomed();
        await doomed.close();
        await relay.close();
      });
      doomed.start();
      const events = ['evt_d0', 'evt_d1', 'evt_d2', 'evt_d3'];
      const jobs = new Map<string, string>();
      for (const [index, eventId] of events.entries())
        jobs.set(eventId, await doomed.submit(eventId, eventId, `U0P${index}`));
      // Three calls in hand (its worker takes as many jobs as the limit allows calls: no more), the
      // fourth queued behind them.
      await until(() => doomedFetched.length === 3, 'three calls in hand', BOUND_MS);
      const fourth = events.find((eventId) => !doomedFetched.includes(eventId)) as string;
      expect(
        await redisCommand(redis.url, 'ZSCORE', `bull:${name}:prioritized`, jobs.get(fourth) as string),
      ).not.toBeNull();
      relay.down();
      const survivors = replicas(2, { name, limit, ...hold });
      // Every job finished (completed in Redis), so a second delivery of any would be in by now.
      await waitFor(
        async () => {
          for (const id of jobs.values())
            if ((await redisCommand(redis.url, 'ZSCORE', key(survivors, 'completed'), id)) === null) return false;
          return true;
        },
        { what: 'every job completed by the survivors', timeoutMs: BOUND_MS },
      );
      expect([...survivors.delivered].sort()).toEqual(events);
      expect([...survivors.fetched].sort()).toEqual(events);
      expect(doomedDelivered).toEqual([]);
    },
    4 * BOUND_MS,
  );

  it("fetches a second person's one report no later than 4th, not after all ten of the first person's", async () => {
    // The first window's three calls are held until Bob has asked: however slowly Alice's ten are
    // queued on a busy machine, Bob asks while exactly three of hers are being fetched.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = replicas(2, {
      limit: { limit: 3, windowMs: 300 },
      // A job handed out waits for the one whose turn comes first to start, however busy the machine.
      turnWaitMs: BOUND_MS,
      fetch: async (eventId) => {
        await gate;
        return report(eventId);
      },
    });
    const alice = Array.from({ length: 10 }, (_, i) => `evt_a${i}`);
    await ask(replica(r, 0), 'UALICE', alice);
    await until(() => r.fetched.length === 3, 'the first window of calls to start', BOUND_MS);
    await ask(replica(r, 1), 'UBOB', ['evt_b0']);
    release();
    await until(() => r.delivered.length === 11, 'every report delivered', BOUND_MS);
    expect(r.fetched.indexOf('evt_b0')).toBe(3);
    // Alice's own reports keep her order: each is handed out in turn. The three handed out in one
    // window (the limit) may start their calls in any order on two busy replicas, so at most two
    // places either way (one place failed on a loaded CI run).
    const hers = r.fetched.filter((id) => id !== 'evt_b0');
    expect([...hers].sort()).toEqual(alice);
    for (const [place, id] of hers.entries()) expect(Math.abs(alice.indexOf(id) - place), id).toBeLessThanOrEqual(2);
  });

  it('alternates between two people who asked for three each, on different replicas, and shows each their real place', async () => {
    const r = replicas(2, { started: false });
    const a = await ask(replica(r, 0), 'UA', ['evt_a0', 'evt_a1', 'evt_a2']);
    const b = await ask(replica(r, 1), 'UB', ['evt_b0', 'evt_b1', 'evt_b2']);
    const shown = await byShownPlace([
      { queue: replica(r, 0), jobs: a },
      { queue: replica(r, 1), jobs: b },
    ]);
    expect(shown).toEqual(['evt_a0', 'evt_b0', 'evt_a1', 'evt_b1', 'evt_a2', 'evt_b2']);
    for (const queue of r.queues) queue.start();
    await until(() => r.delivered.length === 6, 'every report delivered');
    expect(r.fetched).toEqual(shown);
  });

  it('shows a plain waiting job (one taken back from a dead replica) ahead of every prioritized one, as BullMQ hands it out', async () => {
    const r = replicas(2, { started: false });
    const a = await ask(replica(r, 0), 'UA', ['evt_a0', 'evt_a1']);
    const bull = new Queue(r.name, { connection: connection() });
    redis.closers.push(() => bull.close());
    const plain = await bull.add('report', { eventId: 'evt_plain', delivery: 'p', requestedAt: Date.now() });
    const shown = await byShownPlace([
      { queue: replica(r, 0), jobs: a },
      { queue: replica(r, 1), jobs: new Map([['evt_plain', plain.id as string]]) },
    ]);
    expect(shown).toEqual(['evt_plain', 'evt_a0', 'evt_a1']);
    for (const queue of r.queues) queue.start();
    await until(() => r.delivered.length === 3, 'every report delivered');
    expect(r.fetched).toEqual(shown);
  });

  it('puts a newcomer in the current round while others wait, a request without a person too, and fetches in the places shown', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A window long enough that no worker takes a job (to find no slot) while the places are read.
    const r = replicas(2, {
      started: false,
      limit: { limit: 1, windowMs: 150 },
      fetch: async (eventId) => {
        if (eventId === 'evt_first') await gate;
        return report(eventId);
      },
    });
    replica(r, 0).start();
    // One report in hand (its round is the current one) while the others queue behind the limit.
    await ask(replica(r, 0), 'UA', ['evt_first']);
    await until(() => r.fetched.length === 1, 'the first fetch to start');
    const asked = [
      { queue: replica(r, 0), jobs: await ask(replica(r, 0), 'UA', ['evt_a1', 'evt_a2']) },
      { queue: replica(r, 1), jobs: await ask(replica(r, 1), 'UB', ['evt_b0', 'evt_b1']) },
      { queue: replica(r, 0), jobs: await ask(replica(r, 0), 'UC', ['evt_c0']) },
      { queue: replica(r, 1), jobs: await ask(replica(r, 1), undefined, ['evt_anyone']) },
    ];
    const shown = await byShownPlace(asked);
    // A has had round 1: their next ones take rounds 2 and 3; B, C and the request without a person join round 1.
    expect(shown).toEqual(['evt_b0', 'evt_c0', 'evt_anyone', 'evt_a1', 'evt_b1', 'evt_a2']);
    replica(r, 1).start();
    release();
    await until(() => r.delivered.length === 7, 'every report delivered');
    expect(r.fetched).toEqual(['evt_first', ...shown]);
  });

  it('moves the priorities back down once the queue is empty, keeping whose turn it is', async () => {
    const r = replicas(1, { started: false });
    const queue = replica(r, 0);
    const job = async (jobId: string | undefined) => {
      const hash = (await redisCommand(redis.url, 'HGETALL', key(r, String(jobId)))) as string[];
      const fields = new Map<string, string>();
      for (let i = 0; i + 1 < hash.length; i += 2) fields.set(hash[i] as string, hash[i + 1] as string);
      return { priority: Number(fields.get('priority')), round: JSON.parse(fields.get('data') ?? '{}').round };
    };
    const first = await ask(queue, 'UA', ['evt_a0', 'evt_a1', 'evt_a2']);
    expect(await job(first.get('evt_a2'))).toEqual({ priority: 3, round: 3 });
    queue.start();
    await until(() => r.delivered.length === 3, 'the first three delivered');
    // Completed jobs leave the active list just after their answer is delivered.
    await waitFor(async () => (await redisCommand(redis.url, 'LLEN', key(r, 'active'))) === 0, {
      what: 'the active list to empty',
    });
    // Round 3 is the current one and now priority 1: A, who had it, comes after a newcomer.
    const again = await ask(queue, 'UA', ['evt_a3']);
    const newcomer = await ask(queue, 'UB', ['evt_b0']);
    expect(await job(again.get('evt_a3'))).toEqual({ priority: 2, round: 4 });
    expect(await job(newcomer.get('evt_b0'))).toEqual({ priority: 1, round: 3 });
    await until(() => r.delivered.length === 5, 'the last two delivered');
  });

  it("takes a report that met the report limit again after the wait, not after BullMQ's 5 s drain delay", async () => {
    let calls = 0;
    const starts: number[] = [];
    const r = replicas(2, {
      limit: { limit: 2, windowMs: 1_000 },
      fetch: async (eventId) => {
        starts.push(Date.now());
        calls += 1;
        if (calls === 1) throw new RateLimitedError('report limit', { retryAfterMs: 300, scope: 'report' });
        return report(eventId);
      },
    });
    // Both workers idle, blocked waiting for a job, when it is put back.
    await sleep(200);
    await ask(replica(r, 0), 'UA', ['evt_limited']);
    await until(() => r.delivered.length === 1, 'the report delivered');
    expect(r.fetched).toEqual(['evt_limited', 'evt_limited']);
    const again = (starts[1] as number) - (starts[0] as number);
    expect(again).toBeGreaterThanOrEqual(250);
    expect(again).toBeLessThan(2_500);
  });
});

describe('SharedReportQueue.spare (background work takes only the slots people leave)', () => {
  const mapCache = (): ReportCache & { reports: Map<string, EventReport> } => {
    const reports = new Map<string, EventReport>();
    return {
      reports,
      get: async (eventId) => {
        const found = reports.get(eventId);
        return found && { report: found, readAt: 0 };
      },
      set: async (eventId, value) => {
        reports.set(eventId, value);
      },
    };
  };
  const recording = (calls: string[]) => (eventId: string) => async () => {
    calls.push(eventId);
    return report(eventId);
  };
  const slotsTaken = async (r: Replicas) => Number(await redisCommand(redis.url, 'ZCARD', key(r, 'rolling:slots')));

  it('serves the cached report without a slot, even while people wait', async () => {
    const cache = mapCache();
    cache.reports.set('evt_cached', { eventName: 'cached' } as EventReport);
    const r = replicas(1, { started: false, cache });
    await ask(replica(r, 0), 'UA', ['evt_waiting']);
    const calls: string[] = [];
    await expect(replica(r, 0).spare('evt_cached', recording(calls)('evt_cached'))).resolves.toEqual({
      eventName: 'cached',
    });
    expect(calls).toEqual([]);
    expect(await slotsTaken(r)).toBe(0);
  });

  it('gives nothing while any request waits (prioritized, plain waiting or delayed), and takes no slot', async () => {
    // The watches had their share of slots just now: none is owed them for a long while.
    const r = replicas(1, { started: false, watchShare: { everyWindows: 10_000 } });
    await redisCommand(redis.url, 'HSET', key(r, 'rolling:watch'), 'lastAt', String(Date.now()));
    const queue = replica(r, 0);
    const bull = new Queue(r.name, { connection: connection() });
    redis.closers.push(() => bull.close());
    const calls: string[] = [];
    const spare = () => queue.spare('evt_watch', recording(calls)('evt_watch'));

    const person = await ask(queue, 'UA', ['evt_person']);
    expect(await spare()).toBeUndefined();
    await bull.remove(person.get('evt_person') as string);
    // Without a priority (a job queued before turns, or a stalled one taken back): BullMQ's plain list.
    const plain = await bull.add('report', { eventId: 'evt_plain', delivery: 'p', requestedAt: Date.now() });
    expect(await spare()).toBeUndefined();
    await plain.remove();
    // A job tried again after a passing error waits in the delayed set.
    const delayed = await bull.add(
      'report',
      { eventId: 'evt_delayed', delivery: 'd', requestedAt: Date.now() },
      { delay: 60_000 },
    );
    expect(await spare()).toBeUndefined();
    expect(calls).toEqual([]);
    expect(await slotsTaken(r)).toBe(0);
    await delayed.remove();
    expect(await queue.waiting()).toBe(0);
    // Handed out to a worker and about to ask for its slot: it waits too.
    await redisCommand(redis.url, 'LPUSH', key(r, 'active'), '999');
    expect(await spare()).toBeUndefined();
    expect(await slotsTaken(r)).toBe(0);
    // Once it has started (its slot taken), nobody waits.
    await redisCommand(redis.url, 'ZADD', key(r, 'turns-started'), Date.now(), '999');
    await expect(spare()).resolves.toEqual({ eventName: 'evt_watch' });
    expect(calls).toEqual(['evt_watch']);
  });

  it('fetches with a free slot, caches the report, and frees the slot a window after the call', async () => {
    const cache = mapCache();
    // A window of a second: the looks between the two calls below fit in it on a busy machine.
    const r = replicas(2, { started: false, cache, limit: { limit: 1, windowMs: 1_000 } });
    const calls: string[] = [];
    const fetch = recording(calls);
    await expect(replica(r, 0).spare('evt_w0', fetch('evt_w0'))).resolves.toEqual({ eventName: 'evt_w0' });
    expect(cache.reports.get('evt_w0')).toEqual({ eventName: 'evt_w0' });
    expect(Number(await redisCommand(redis.url, 'ZCARD', key(r, 'rolling:held')))).toBe(0);
    // The one slot is taken for a window after the call, for every replica.
    expect(await replica(r, 1).spare('evt_w1', fetch('evt_w1'))).toBeUndefined();
    await sleep(1_050);
    await expect(replica(r, 1).spare('evt_w1', fetch('evt_w1'))).resolves.toEqual({ eventName: 'evt_w1' });
    expect(calls).toEqual(['evt_w0', 'evt_w1']);
  });

  it('frees its slot when the fetch fails, and passes the failure on', async () => {
    const r = replicas(1, { started: false, limit: { limit: 1, windowMs: 150 } });
    const queue = replica(r, 0);
    const failure = new Error('the service is down');
    await expect(
      queue.spare('evt_w0', async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(Number(await redisCommand(redis.url, 'ZCARD', key(r, 'rolling:held')))).toBe(0);
    const calls: string[] = [];
    await sleep(200);
    await expect(queue.spare('evt_w0', recording(calls)('evt_w0'))).resolves.toEqual({ eventName: 'evt_w0' });
    expect(calls).toEqual(['evt_w0']);
  });

  it("holds every replica back for a report 429's wait, as a person's job's 429 does", async () => {
    const starts: number[] = [];
    const r = replicas(2, {
      started: false,
      limit: { limit: 2, windowMs: 200 },
      fetch: async (eventId) => {
        starts.push(Date.now());
        return report(eventId);
      },
    });
    // A 429 wait well past the 200 ms window, with room for the looks below on a busy machine.
    const limited = new RateLimitedError('report limit', { retryAfterMs: 1_500, scope: 'report' });
    const at = Date.now();
    await expect(
      replica(r, 0).spare('evt_w0', async () => {
        throw limited;
      }),
    ).rejects.toBe(limited);
    const blockedUntil = Number(await redisCommand(redis.url, 'HGET', key(r, 'rolling:state'), 'blockedUntil'));
    expect(blockedUntil - at).toBeGreaterThanOrEqual(1_450);
    // Past the window, a slot is free by the count, but the wait holds.
    await sleep(250);
    const calls: string[] = [];
    expect(await replica(r, 1).spare('evt_w1', recording(calls)('evt_w1'))).toBeUndefined();
    expect(calls).toEqual([]);
    // A person's report waits for it as well, on the other replica.
    replica(r, 1).start();
    await ask(replica(r, 1), 'UA', ['evt_person']);
    await until(() => r.delivered.length === 1, "the person's report");
    expect(r.fetched).toEqual(['evt_person']);
    expect((starts[0] as number) - at).toBeGreaterThanOrEqual(1_450);
  });
});
