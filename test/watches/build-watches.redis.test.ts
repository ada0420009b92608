import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import { buildWatches } from '../../src/watches/build-watches.js';
import type { WatchChat, WatchMessages } from '../../src/watches/watch-chat.js';
import { useRedis } from '../helpers/redis-server.js';
import { sampleReport } from '../helpers/sample-report.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

const redis = useRedis();

const T0 = Date.parse('2026-12-01T09:00:00Z');
const EVENT = { id: 'evt_jazz', name: 'Jazz Night', startsAtMs: T0 + 86_400_000, endsAtMs: T0 + 90_000_000 };

const messages: WatchMessages<string> = {
  card: () => 'card',
  alert: () => 'alert',
  summary: () => 'summary',
  paused: () => 'paused',
};

function chat(): WatchChat<string> {
  let ts = 0;
  return {
    postCard: async () => `1764579600.${String(++ts).padStart(6, '0')}`,
    updateCard: async () => undefined,
    reply: async () => undefined,
    findCard: async () => undefined,
    findReply: async () => false,
    notify: async () => undefined,
    channelRefusal: () => undefined,
  };
}

describe('buildWatches across replicas', () => {
  it('a replica whose turn finds the watch:turn lock held looks again later instead of waiting, for as long as the check runs', async () => {
    const url = `${redis.url}/3`;
    // Locks that live 1 s unless renewed (every third of that: a busy machine stalling this
    // process 200 ms let a 300 ms lock lapse); the first replica's check runs until released.
    const handles = [await openStore(url, { lockMs: 1_000 }), await openStore(url, { lockMs: 1_000 })];
    redis.closers.push(...handles.map((handle) => () => handle.close()));
    let release: (report: EventReport) => void = () => undefined;
    const slow = new Promise<EventReport>((resolve) => {
      release = resolve;
    });
    const asked: string[] = [];
    const replicas = handles.map((handle, i) =>
      buildWatches<string>({
        store: handle.keyValue,
        claims: handle.claims,
        chat: chat(),
        messages,
        reports: {
          spare: (eventId) => {
            asked.push(`${i}:${eventId}`);
            return i === 0 ? slow : Promise.resolve(sampleReport());
          },
        },
        // No report is read for a person here: nothing to hear.
        reads: { onReportRead: () => () => undefined },
        reportLimit: { limit: 3, windowMs: 60_000 },
        minIntervalMs: 600_000,
        acrossReplicas: true,
        track: (work) => work,
        clock: { now: () => T0 },
        logger: silentLogger,
      }),
    );
    const [first, second] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    await first.service.watch({
      channel: 'C0OPS',
      personal: false,
      event: EVENT,
      userId: 'U0ALICE',
      conditions: [{ kind: 'sold-out' }],
    });
    const checking = first.turn();
    await waitFor(() => asked.length > 0, { what: 'the first replica to ask for its report' });
    // Past the lock's life three times over: renewed, it still keeps the second replica out. Wall
    // time, as the lock's life runs on the Redis server's clock (PX).
    await sleep(3_200);
    const started = Date.now();
    expect(await second.turn()).toEqual({ kind: 'turn-elsewhere' });
    // At once: a turn that waited for the lock would wait until the check is released below.
    expect(Date.now() - started).toBeLessThan(1_000);
    release(sampleReport());
    expect(await checking).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(asked).toEqual([`0:${EVENT.id}`]);
    expect(await second.turn()).toMatchObject({ kind: 'idle' });
  });
});
