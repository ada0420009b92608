import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { useRedis } from '../helpers/redis-server.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { redisCommand } from '../replicas/redis-command.js';

const redis = useRedis();

/** Whether Redis is out, and how many times the per-key lock was taken and refused (a follower's rounds). */
interface Outage {
  now: boolean;
  taken: number;
  refused: number;
}

/** The real store, with its per-key lock failing while `down.now` is true (Redis out for a while). */
async function storeWithOutage(url: string, down: Outage): Promise<StoreHandle> {
  const store = await openStore(url);
  const keyValue = new Proxy(store.keyValue, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'exclusive') {
        return (key: string, work: () => Promise<unknown>) => {
          if (down.now) {
            down.refused += 1;
            return Promise.reject(new Error('Connection is closed (injected)'));
          }
          down.taken += 1;
          return target.exclusive(key, work);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { ...store, keyValue };
}

describe('a report waiting in the shared queue (Redis mode)', () => {
  it('is still told "not fetched" when Redis was out for a while and came back without it', async () => {
    const url = `${redis.url}/2`;
    const down: Outage = { now: false, taken: 0, refused: 0 };
    const rig = await startBot({
      sim: { reportLimit: { limit: 1, windowMs: 60_000 }, eventCount: 20 },
      env: { STORE_URL: url, TICKETING_REPORT_LIMIT: '1/60s' },
      compose: { openStore: () => storeWithOutage(url, down), progressIntervalMs: 200 },
    });
    redis.closers.push(() => rig.close());
    try {
      // The catalog first, at full speed: the latency is for the report calls only.
      await rig.bot.catalog.snapshot();
      rig.sim.knobs.latencyMs = 4_000;
      const [first, second] = rig.sim.catalog.events;
      for (const event of [first, second]) {
        const reply = await postSigned(
          rig.url,
          SIGNING_SECRET,
          commandBody({ text: `report ${event?.id}`, channel_id: 'C0FOLLOW', response_url: rig.slack.responseUrl() }),
        );
        expect(reply.status).toBe(200);
      }
      // One is being fetched; the other waits a minute behind it. Which is which is the queue's
      // order, not the commands' (each is queued after its ack): read it from the service's log.
      await rig.slack.waitFor(() => (rig.sim.stats().admittedReports === 1 ? true : undefined));
      // The service logs a call once it has answered it (after its 4 s).
      const fetched = await rig.slack.waitFor(
        () => rig.sim.stats().log.find((entry) => entry.path.endsWith('/report'))?.path,
        15_000,
      );
      const waiting = [first, second].find((event) => !fetched.includes((event?.id ?? '').replace(/^evt_/, '')));
      expect(waiting).toBeDefined();
      const posts = () =>
        rig.slack.calls.filter((call) => call.method === 'chat.postMessage' && call.args.channel === 'C0FOLLOW');
      await rig.slack.waitFor(() => (posts().length === 2 ? true : undefined));
      // The waiting one's follower looks at the queue again (a round after its first).
      const rounds = down.taken;
      await rig.slack.waitFor(() => (down.taken >= rounds + 1 ? true : undefined));
      // Redis goes away for a while (two of the follower's rounds fail) and comes back empty (a
      // restart without persistence). The flush comes once a round has been refused: a round
      // already past the lock when Redis "went away" would otherwise see the flush itself, say
      // "not fetched" at once and stop, so that no round was ever refused twice (it failed so, on
      // loaded clean-clone runs, waiting for the second refusal).
      down.now = true;
      await rig.slack.waitFor(() => (down.refused >= 1 ? true : undefined));
      await redisCommand(url, 'FLUSHDB');
      await rig.slack.waitFor(() => (down.refused >= 2 ? true : undefined));
      down.now = false;
      // The waiting one's message (the other's was answered before the outage).
      const told = await rig.slack.waitFor(
        () =>
          rig.slack.calls.find(
            (call) =>
              call.method === 'chat.update' &&
              String(call.args.text).includes('was not fetched') &&
              String(call.args.text).includes(`/events report ${waiting?.id}`),
          ),
        // The store client reconnects with a backoff first; on a loaded machine that took over 5 s.
        20_000,
      );
      expect(String(told.args.text)).toContain('Ask again');
    } finally {
      rig.sim.knobs.latencyMs = 0;
    }
  }, 60_000);
});
