import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { awaitReport, type ReplyTarget, replyView } from '../../../src/reports/awaited-report.js';
import type { SharedReportProgress } from '../../../src/reports/queue/shared-report-job.js';
import { SharedReportQueue } from '../../../src/reports/queue/shared-report-queue.js';
import { sharedReports } from '../../../src/reports/queue/shared-reports.js';
import type { ReportDelivery } from '../../../src/reports/report-surface.js';
import { StoreError } from '../../../src/store/key-value-store.js';
import type { EventReport } from '../../../src/ticketing/schemas.js';
import { systemClock } from '../../../src/time/clock.js';
import { useRedis } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { redisCommand } from '../../replicas/redis-command.js';

/*
 * Redis flushed while six people's reports wait in the shared queue, asked through three replicas:
 * every one of them is answered (here: told "not fetched"), including the one whose job a worker
 * had been handed, and put back for want of a slot, while its follower looked at it (issue 33, item 9).
 */

const redis = useRedis();
let counter = 0;

type Delivery = ReportDelivery<ReplyTarget>;

const report = (eventId: string): EventReport => ({ eventName: eventId }) as EventReport;

/** The replies left by a replica that fetched a report, for the one that waits for it (the store's part). */
function memoryStore() {
  const values = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => values.get(key) as T | undefined,
    set: async (key: string, value: unknown) => {
      values.set(key, value);
    },
    delete: async (key: string) => values.delete(key),
  };
}

function deferred() {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/** How the report limit is spent when the six ask: by calls within the rolling window, or by the service's own (fixed-window) headers. */
type Spent = 'rolling' | 'fixed';

describe('a Redis flush with six reports queued across three replicas', () => {
  it.each<Spent>(['rolling', 'fixed'])(
    'answers all six (%s window), including one a worker had been handed and put back while its follower looked',
    async (spent) => {
      const name = `flush-${++counter}`;
      const store = memoryStore();
      const stopping = new AbortController();
      redis.closers.push(async () => stopping.abort());
      // The first person's job is held by the worker that took it (at its cache look, before its
      // turn and slot) until its follower has seen it being fetched.
      const held = deferred();
      const replicas: SharedReportQueue<Delivery>[] = [];
      for (let i = 0; i < 3; i += 1) {
        const queue = new SharedReportQueue<Delivery>({
          connection: { host: '127.0.0.1', port: Number(new URL(redis.url).port), db: 0 },
          name,
          // One report a minute: BullMQ's own limiter then hands out one job in the test's time.
          limit: { limit: 1, windowMs: 60_000 },
          progressSnapshotMs: 0,
          cache: {
            get: async (eventId) => {
              if (eventId === 'evt_first') await held.promise;
              return undefined;
            },
            set: async () => undefined,
          },
          fetchReport: async (eventId) => report(eventId),
          deliver: async (job, outcome) => {
            await replyView(store, job.delivery.where, silentLogger).show(
              outcome.kind === 'report'
                ? { state: 'report', report: outcome.report }
                : { state: 'failed', error: outcome.error },
            );
          },
        });
        queue.start();
        redis.closers.push(() => queue.close());
        replicas.push(queue);
      }
      const replica = (index: number) => replicas[index % replicas.length] as SharedReportQueue<Delivery>;

      // The minute's one report is spent before anyone asks, without BullMQ's limiter knowing.
      if (spent === 'rolling') {
        expect(await replica(0).spare('evt_watch', async () => report('evt_watch'))).toBeDefined();
      } else {
        const now = Date.now();
        replica(0).observe({ limit: 1, remaining: 0, resetAt: now + 60_000, observedAt: now });
        await waitFor(() => redisCommand(redis.url, 'HGET', `bull:${name}:rolling:state`, 'observedAt'), {
          what: 'the service headers in Redis',
        });
      }

      // Each person asks through a replica's report flow; what its follower is told is recorded.
      const jobOf = new Map<string, string>();
      const seen = new Map<string, SharedReportProgress['state'][]>();
      const settled = new Map<string, { report: EventReport } | { error: unknown }>();
      const ask = (person: string, eventId: string, through: SharedReportQueue<Delivery>) => {
        const flow = sharedReports<ReplyTarget>({
          // People's reports only: no watch asks for a spare one.
          fetchSpare: () => Promise.reject(new Error('No watch here')),
          queue: {
            cached: async () => undefined,
            spare: async () => undefined,
            start: () => {},
            close: async () => {},
            waiting: () => through.waiting(),
            reserve: (...args) => through.reserve(...args),
            release: (hold) => through.release(hold),
            submit: async (...args) => {
              const id = await through.submit(...args);
              jobOf.set(person, id);
              return id;
            },
            progress: async (id) => {
              const progress = await through.progress(id);
              seen.set(person, [...(seen.get(person) ?? []), progress.state]);
              return progress;
            },
          },
          activity: { recordReport: async () => undefined },
          clock: systemClock,
          logger: silentLogger,
          stopping: stopping.signal,
          progressIntervalMs: 20,
        });
        void awaitReport(
          flow,
          { store, clock: systemClock, stopping: stopping.signal },
          { eventId, label: eventId, userId: person },
        ).then(
          (got) => settled.set(person, { report: got }),
          (error: unknown) => settled.set(person, { error }),
        );
      };
      const key = (suffix: string) => `bull:${name}:${suffix}`;

      // 1. The first person asks; a worker takes their job at once and is held with it in hand, so
      //    that their follower sees it being fetched.
      ask('U0FIRST', 'evt_first', replica(0));
      await waitFor(() => seen.get('U0FIRST')?.includes('fetching'), {
        what: "the first follower's look at its job in hand",
      });
      // 2. Let go, the worker finds no slot and puts the job back in the queue, every worker paused.
      held.release();
      const first = jobOf.get('U0FIRST') as string;
      await waitFor(async () => (await redisCommand(redis.url, 'ZSCORE', key('prioritized'), first)) !== null, {
        what: 'the first job back in the queue',
      });
      // 3. Five more people ask through the three replicas; each follower sees its request queued.
      const others = ['U1', 'U2', 'U3', 'U4', 'U5'];
      for (const [index, person] of others.entries()) ask(person, `evt_${person}`, replica(index + 1));
      await waitFor(() => others.every((person) => seen.get(person)?.includes('queued')), {
        what: 'five followers to see their requests queued',
      });
      expect(await replica(0).waiting()).toBe(6);

      // 4. Redis loses everything.
      await redisCommand(redis.url, 'FLUSHALL');

      // Every request settles: with its report, or told it was not fetched (nobody will fetch it).
      const people = ['U0FIRST', ...others];
      await waitFor(() => settled.size === people.length, { timeoutMs: 10_000 }).catch(() => undefined);
      // A request still pending is named with what its follower was told, look by look.
      const looks = (person: string) =>
        (seen.get(person) ?? []).filter((state, index, all) => state !== all[index - 1]).join(' > ');
      expect(people.filter((person) => !settled.has(person)).map((person) => `${person}: ${looks(person)}`)).toEqual(
        [],
      );
      for (const outcome of settled.values()) {
        if ('report' in outcome) continue;
        expect(outcome.error).toBeInstanceOf(StoreError);
        expect(String((outcome.error as Error).message)).toMatch(/lost the report request/);
      }
      stopping.abort();
    },
    30_000,
  );
});
