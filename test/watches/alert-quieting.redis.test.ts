import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/open-store.js';
import { buildWatches } from '../../src/watches/build-watches.js';
import type { WatchChat, WatchMessages } from '../../src/watches/watch-chat.js';
import { useRedis } from '../helpers/redis-server.js';
import { sampleReport } from '../helpers/sample-report.js';

const redis = useRedis();

const T0 = Date.parse('2026-12-01T09:00:00Z');
const HOUR = 3_600_000;
const EVENT = { id: 'evt_jazz', name: 'Jazz Night', startsAtMs: T0 + 30 * 86_400_000, endsAtMs: T0 + 31 * 86_400_000 };

interface Sent {
  replica: number;
  condition: string;
  mentions: readonly string[];
  broadcast: boolean;
}

/**
 * Snoozes, mutes and thread-only set on one replica hold on another that shares the Redis store
 * (and on a process started after them: the second replica opens its store after they were set).
 */
describe('alert quieting across replicas', () => {
  it('a snooze, a mute and thread-only set on one replica are obeyed by another', async () => {
    const url = `${redis.url}/4`;
    let now = T0;
    const clock = { now: () => now };
    const sent: Sent[] = [];
    let pending: Omit<Sent, 'broadcast'> | undefined;
    const replica = async (index: number) => {
      const handle = await openStore(url);
      redis.closers.push(() => handle.close());
      const messages: WatchMessages<string> = {
        card: () => 'card',
        alert: (input) => {
          pending = { replica: index, condition: input.condition.key, mentions: input.mentions ?? [] };
          return 'alert';
        },
        summary: () => 'summary',
        paused: () => 'paused',
      };
      let ts = 0;
      const chat: WatchChat<string> = {
        postCard: async () => `1764579600.${String(++ts).padStart(6, '0')}${index}`,
        updateCard: async () => undefined,
        reply: async (_channel, _thread, message, options) => {
          if (message === 'alert' && pending) sent.push({ ...pending, broadcast: options.broadcast });
        },
        findCard: async () => undefined,
        findReply: async () => false,
        notify: async () => undefined,
        channelRefusal: () => undefined,
      };
      return buildWatches<string>({
        reads: { onReportRead: () => () => undefined },
        store: handle.keyValue,
        claims: handle.claims,
        chat,
        messages,
        reports: { spare: async () => sampleReport() },
        reportLimit: { limit: 3, windowMs: 60_000 },
        minIntervalMs: 60_000,
        acrossReplicas: true,
        track: (work) => work,
        clock,
        logger: silentLogger,
      });
    };

    const first = await replica(0);
    await first.service.watch({
      channel: 'C0OPS',
      personal: false,
      event: EVENT,
      userId: 'U0ALICE',
      conditions: [{ kind: 'sold-share', percent: 60 }],
    });
    await first.service.watch({
      channel: 'C0OPS',
      personal: false,
      event: EVENT,
      userId: 'U0BOB',
      conditions: [{ kind: 'sold-since', count: 10 }],
    });
    await first.service.observe(EVENT.id, sampleReport({ ticketsSold: 500 }), now);
    expect(await first.service.quieting?.snooze('C0OPS', EVENT.id, 'U0ALICE', '1h')).toBeDefined();
    expect(await first.service.quieting?.toggleMute('C0OPS', EVENT.id, 'U0ALICE')).toBe(true);
    await first.service.quieting?.setThreadOnly('C0OPS', true);

    // The other replica starts after: it finds all three in the store.
    const second = await replica(1);
    now += 10 * 60_000;
    await second.service.observe(EVENT.id, sampleReport({ ticketsSold: 650 }), now);
    expect(sent).toEqual([]);

    // After the hour: the share alerts on the newer figures, in the thread only, naming Bob alone;
    // the jump since the check in the snooze is no baseline.
    now = T0 + HOUR + 60_000;
    await second.service.observe(EVENT.id, sampleReport({ ticketsSold: 700 }), now);
    expect(sent).toEqual([{ replica: 1, condition: 'sold >= 60%', mentions: [], broadcast: false }]);
    now += 60_000;
    await second.service.observe(EVENT.id, sampleReport({ ticketsSold: 720 }), now);
    expect(sent.at(-1)).toEqual({
      replica: 1,
      condition: '+10 sold since the last check',
      mentions: ['U0BOB'],
      broadcast: false,
    });
    expect(sent).toHaveLength(2);
  });
});
