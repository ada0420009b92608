import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessReportQueue } from '../../../src/reports/queue/in-process-report-queue.js';
import { storeReportCache } from '../../../src/reports/queue/report-cache.js';
import type { RequesterKind, WaitingLimits } from '../../../src/reports/queue/report-waiting.js';
import { SharedReportQueue } from '../../../src/reports/queue/shared-report-queue.js';
import type { WatchShareOptions } from '../../../src/reports/queue/watch-share.js';
import type { KeyValueStore } from '../../../src/store/key-value-store.js';
import { openStore } from '../../../src/store/open-store.js';
import { TooManyReportsWaitingError } from '../../../src/ticketing/errors.js';
import type { EventReport } from '../../../src/ticketing/schemas.js';
import { systemClock } from '../../../src/time/clock.js';
import { useRedis } from '../../helpers/redis-server.js';
import { sleep } from '../../helpers/wait-for.js';

/*
 * Issue 26 item 6 and item 3, one set of rules in two implementations: the in-process report queue
 * (TypeScript) and the replicas' shared queue (Lua in a real redis-server) must both cap the
 * reports waiting per person and for every workflow step together (refused at once, no call),
 * give the watches one slot in every N windows while people keep the queue busy (never two in a
 * row), serve a watch no cached report read at or before its last check, and pass the cache by
 * for a request asked fresh. The shared slots run on Redis's clock: windows are a few hundred ms.
 */

const redis = useRedis();
let store: KeyValueStore | undefined;
beforeAll(async () => {
  const opened = await openStore(redis.url, { namespace: 'fairness-contract' });
  redis.closers.push(() => opened.close());
  store = opened.keyValue;
});

interface Options {
  limit: { limit: number; windowMs: number };
  waiting?: WaitingLimits;
  watchShare?: WatchShareOptions;
  cacheTtlMs?: number;
}

interface Ask {
  requester?: string;
  requesterKind?: RequesterKind;
  label?: string;
  fresh?: boolean;
}

/** One queue under test, as the contract drives it. */
interface Harness {
  /** Asks for a report; resolves once it is delivered, rejects when refused. `queued` settles once it waits (or was refused). */
  ask(eventId: string, ask?: Ask): { delivered: Promise<EventReport>; queued: Promise<void> };
  spare(eventId: string, readAfterMs?: number): Promise<EventReport | undefined>;
}

/** Every report call reaching the "service", in order, with a gate a test may hold calls at. */
class Service {
  readonly calls: string[] = [];
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;

  hold(): void {
    this.#gate = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  release(): void {
    this.#open?.();
    this.#gate = undefined;
  }

  fetch = async (eventId: string): Promise<EventReport> => {
    this.calls.push(eventId);
    await this.#gate;
    return { eventName: eventId, call: this.calls.length } as EventReport;
  };
}

const services: Service[] = [];
afterEach(() => {
  for (const service of services.splice(0)) service.release();
});

function inProcess(service: Service, options: Options): Harness {
  const queue = new InProcessReportQueue({
    ...options.limit,
    cacheTtlMs: options.cacheTtlMs ?? 60_000,
    ...(options.waiting ? { waiting: options.waiting } : {}),
    ...(options.watchShare ? { watchShare: options.watchShare } : {}),
    fetchReport: (eventId) => service.fetch(eventId),
  });
  return {
    ask(eventId, ask = {}) {
      try {
        const ticket = queue.request(eventId, ask);
        return { delivered: ticket.result, queued: Promise.resolve() };
      } catch (error) {
        return { delivered: Promise.reject(error), queued: Promise.resolve() };
      }
    },
    spare: async (eventId, readAfterMs) => queue.spare(eventId, { readAfterMs }),
  };
}

let names = 0;

/** Two replicas' queues on one BullMQ queue; asks alternate between them. */
function replicas(service: Service, options: Options): Harness {
  if (!store) throw new Error('the store is opened first');
  const { port } = new URL(redis.url);
  const name = `fairness-${++names}`;
  const waiting = new Map<string, (report: EventReport) => void>();
  const cache = storeReportCache(store, options.cacheTtlMs ?? 60_000, systemClock);
  const queues = [0, 1].map(() => {
    const queue = new SharedReportQueue<string>({
      connection: { host: '127.0.0.1', port: Number(port), db: 5 },
      name,
      limit: options.limit,
      cache,
      waiting: options.waiting,
      watchShare: options.watchShare,
      fetchReport: (eventId) => service.fetch(eventId),
      deliver: async (job, outcome) => {
        if (outcome.kind === 'report') waiting.get(job.delivery)?.(outcome.report);
      },
    });
    queue.start();
    redis.closers.push(() => queue.close());
    return queue;
  });
  let turn = 0;
  let deliveries = 0;
  return {
    ask(eventId, ask = {}) {
      const key = `${eventId}#${++deliveries}`;
      const delivered = new Promise<EventReport>((resolve) => waiting.set(key, resolve));
      const queue = queues[turn++ % 2] as SharedReportQueue<string>;
      const queued = queue.submit(eventId, key, ask.requester, ask).then(() => undefined);
      return { delivered: queued.then(() => delivered), queued: queued.catch(() => undefined) };
    },
    spare: (eventId, readAfterMs) =>
      (queues[turn++ % 2] as SharedReportQueue<string>).spare(eventId, () => service.fetch(eventId), {
        readAfterMs,
      }),
  };
}

async function refusal(promise: Promise<unknown>): Promise<TooManyReportsWaitingError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof TooManyReportsWaitingError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe.each([
  ['the in-process ReportQueue', inProcess],
  ['the replicas\u2019 SharedReportQueue', replicas],
])('%s keeps the fairness rules', (_, make) => {
  const start = (options: Options) => {
    const service = new Service();
    services.push(service);
    return { service, queue: make(service, options) };
  };

  it("refuses a person's request beyond their limit at once, naming the reports that wait, with no call", async () => {
    const { service, queue } = start({ limit: { limit: 1, windowMs: 60_000 }, waiting: { perPerson: 2 } });
    service.hold();
    const first = queue.ask('evt_1', { requester: 'U1', label: 'Jazz Night' });
    await first.queued;
    await queue.ask('evt_2', { requester: 'U1', label: 'Poetry <slam>' }).queued;
    const refused = await refusal(queue.ask('evt_3', { requester: 'U1', label: 'Opera' }).delivered);
    expect(refused.limit).toBe(2);
    expect(refused.requesterKind).toBe('person');
    expect([...refused.eventIds].sort()).toEqual(['evt_1', 'evt_2']);
    expect(refused.waiting.map((each) => each.label).sort()).toEqual(['Jazz Night', 'Poetry <slam>']);
    // The same event again shares its place; another person has limits of their own.
    await queue.ask('evt_2', { requester: 'U1' }).queued;
    await queue.ask('evt_3', { requester: 'U2' }).queued;
    await expect.poll(() => service.calls).toEqual(['evt_1']);
    // Once one of theirs arrives, they may ask again.
    service.release();
    await first.delivered;
    await queue.ask('evt_4', { requester: 'U1' }).queued;
    expect(service.calls).not.toContain('evt_4');
  });

  it('refuses a report step beyond the limit every workflow step shares, and not a person', async () => {
    const { service, queue } = start({ limit: { limit: 1, windowMs: 60_000 }, waiting: { perPerson: 5, steps: 1 } });
    service.hold();
    const step = { requester: 'workflow-steps', requesterKind: 'step' as const };
    await queue.ask('evt_1', step).queued;
    const refused = await refusal(queue.ask('evt_2', step).delivered);
    expect(refused.requesterKind).toBe('step');
    expect(refused.limit).toBe(1);
    expect(refused.eventIds).toEqual(['evt_1']);
    await queue.ask('evt_2', { requester: 'U1' }).queued;
  });

  it('gives the watches a slot in every N windows while people keep the queue busy, never two in a row', async () => {
    const windowMs = 150;
    const { service, queue } = start({
      limit: { limit: 1, windowMs },
      waiting: { perPerson: 20 },
      watchShare: { everyWindows: 2, holdMs: 1_000 },
    });
    const people = Array.from({ length: 8 }, (_, i) => queue.ask(`evt_p${i}`, { requester: `U${i % 3}` }));
    await Promise.all(people.map((each) => each.queued));
    let peopleDone = false;
    const all = Promise.all(people.map((each) => each.delivered)).then(() => {
      peopleDone = true;
    });
    // A watch scheduler: while people wait it looks for a spare slot every 10 ms, each time for another event.
    let checks = 0;
    while (!peopleDone) {
      await queue.spare(`evt_w${checks}`);
      if (service.calls.includes(`evt_w${checks}`)) checks += 1;
      await sleep(10);
    }
    await all;
    const lastPerson = Math.max(...people.map((_, i) => service.calls.indexOf(`evt_p${i}`)));
    const whileBusy = service.calls.slice(0, lastPerson + 1);
    const watchCalls = whileBusy.filter((call) => call.startsWith('evt_w'));
    expect(watchCalls.length).toBeGreaterThanOrEqual(1);
    // No person's report waited more than one slot for the watches: never two watch calls in a row.
    for (let i = 1; i < whileBusy.length; i += 1) {
      expect(whileBusy[i - 1]?.startsWith('evt_w') && whileBusy[i]?.startsWith('evt_w')).toBe(false);
    }
  });

  it("serves a watch no cached report read at or before the event's last check", async () => {
    const { service, queue } = start({ limit: { limit: 3, windowMs: 60_000 } });
    const before = Date.now() - 1;
    await queue.ask('evt_c', { requester: 'U1' }).delivered;
    expect(service.calls).toEqual(['evt_c']);
    // Cached after `before`: served at no call.
    expect(await queue.spare('evt_c', before)).toMatchObject({ eventName: 'evt_c', call: 1 });
    expect(service.calls).toHaveLength(1);
    // The last check is this very report (or later): only a new call will do.
    const checkedAt = Date.now();
    await sleep(5);
    expect(await queue.spare('evt_c', checkedAt)).toMatchObject({ eventName: 'evt_c', call: 2 });
    expect(service.calls).toEqual(['evt_c', 'evt_c']);
  });

  it('asks the service for a request asked fresh, though a report of the event is cached', async () => {
    const { service, queue } = start({ limit: { limit: 3, windowMs: 60_000 } });
    await queue.ask('evt_f', { requester: 'U1' }).delivered;
    expect(await queue.ask('evt_f', { requester: 'U1' }).delivered).toMatchObject({ call: 1 });
    expect(await queue.ask('evt_f', { requester: 'U1', fresh: true }).delivered).toMatchObject({ call: 2 });
    expect(service.calls).toEqual(['evt_f', 'evt_f']);
  });
});
