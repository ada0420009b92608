/**
 * `npm run bench` (issue 26 item 9): what one scheduler turn costs with many watches.
 *
 * 500 watches (250 events, each watched in two of ten channels), every event checked once with a report
 * shaped like the simulator's (a few KB: categories, days, promo codes), on SQLite in memory and
 * on a real redis-server. Then, per store:
 * - an idle turn (nothing due: what every replica runs every 2 s while a person's report waits),
 * - a turn that checks the one event due,
 * each as the median time of 20 turns (and the fastest) and the store reads one turn makes (keys
 * read, and the bytes of JSON they held). Figures only, no assertions.
 *
 * `BENCH_SHORT=1` runs the same on 50 events (100 watches) with 5 turns each, to prove the bench
 * still runs (test/bench/benches-run.processes.test.ts), not for its figures.
 */

import { silentLogger } from '../src/logger.js';
import type { KeyValueStore } from '../src/store/key-value-store.js';
import { openStore } from '../src/store/open-store.js';
import type { StoreHandle } from '../src/store/store-handle.js';
import type { EventReport } from '../src/ticketing/schemas.js';
import type { WatchChat, WatchMessages } from '../src/watches/watch-chat.js';
import { WatchService } from '../src/watches/watch-service.js';
import { WatchStore } from '../src/watches/watch-store.js';
import { startRedis } from '../test/helpers/redis-server.js';

/** `BENCH_SHORT=1`: a quicker run (see above). */
const SHORT = process.env.BENCH_SHORT === '1';
const EVENTS = SHORT ? 50 : 250;
/** Each event is watched in two of ten channels (a conversation holds at most 50 watches). */
const WATCHERS = 2;
const channelsOf = (e: number) => [`C0TEAM${(e % 5) * 2}`, `C0TEAM${(e % 5) * 2 + 1}`];
const TURNS = SHORT ? 5 : 20;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-12-01T09:00:00Z');

const out = (line: string) => process.stdout.write(`${line}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function report(eventId: string, sold: number): EventReport {
  return {
    eventId,
    eventName: `Event ${eventId}`,
    currency: 'EUR',
    generatedAt: new Date(T0).toISOString(),
    ticketsSold: sold,
    capacity: 1000,
    grossRevenue: sold * 40,
    netRevenue: sold * 37.6,
    checkIns: 0,
    refunds: 6,
    byCategory: Array.from({ length: 4 }, (_, i) => ({
      id: `tcat_${i}`,
      name: `Category ${i}`,
      price: 20 + i * 10,
      capacity: 250,
      sold: Math.floor(sold / 4),
      revenue: Math.floor(sold / 4) * (20 + i * 10),
    })),
    salesByDay: Array.from({ length: 30 }, (_, i) => ({ date: `2026-11-${String(i + 1).padStart(2, '0')}`, sold: i })),
    promos: Array.from({ length: 3 }, (_, i) => ({
      id: `promo_${i}`,
      code: `CODE${i}`,
      redeemed: i * 5,
      quantity: 100,
    })),
  };
}

/** Counts the reads a store serves, and the bytes of JSON they held. */
function counting(inner: KeyValueStore) {
  const tally = { reads: 0, bytes: 0 };
  const store: KeyValueStore = {
    ...inner,
    get: async <T>(key: string) => {
      const value = await inner.get<T>(key);
      tally.reads += 1;
      tally.bytes += value === undefined ? 0 : JSON.stringify(value).length;
      return value;
    },
    update: (key, change) => inner.update(key, change),
    exclusive: (key, work, options) => inner.exclusive(key, work, options),
    section: (key, work, options) => inner.section(key, work, options),
  };
  return { store, tally };
}

const chat: WatchChat<string> = {
  postCard: async () => `${Date.now()}.000100`,
  updateCard: async () => undefined,
  reply: async () => undefined,
  findCard: async () => undefined,
  findReply: async () => false,
  notify: async () => undefined,
  channelRefusal: () => undefined,
};
const messages: WatchMessages<string> = {
  card: () => 'card',
  alert: () => 'alert',
  summary: () => 'summary',
  paused: () => 'paused',
};

async function measure(name: string, opened: StoreHandle): Promise<void> {
  const { store, tally } = counting(opened.keyValue);
  const clock = { t: T0, now: () => clock.t };
  let sold = 100;
  const service = new WatchService<string>({
    store: new WatchStore(store, silentLogger),
    claims: opened.claims,
    chat,
    messages,
    reports: {
      spare: async (eventId) => {
        sold += 1;
        return report(eventId, sold);
      },
    },
    // The spec's limit, and a minimum interval short enough that 250 events set the pace.
    rule: { limit: 3, windowMs: 60_000, minIntervalMs: 60_000 },
    clock,
    logger: silentLogger,
  });
  const setUpStarted = performance.now();
  for (let e = 0; e < EVENTS; e += 1) {
    const event = {
      id: `evt_${e}`,
      name: `Event ${e}`,
      startsAtMs: T0 + (7 + e) * DAY,
      endsAtMs: T0 + (7 + e) * DAY + HOUR,
    };
    for (const channel of channelsOf(e))
      await service.watch({
        channel,
        personal: false,
        event,
        userId: `U0${e % 40}`,
        conditions: [{ kind: 'sold-share', percent: 90 }],
      });
  }
  // Every event checked once (a report at hand for each), in the order the scheduler picks them.
  for (let e = 0; e < EVENTS; e += 1) {
    const turn = await service.turn();
    if (turn.kind !== 'checked') throw new Error(`expected a check of event ${e}, got ${JSON.stringify(turn)}`);
  }
  const setUpMs = performance.now() - setUpStarted;

  const idle: { ms: number; reads: number; bytes: number }[] = [];
  for (let i = 0; i < TURNS; i += 1) {
    tally.reads = 0;
    tally.bytes = 0;
    const started = performance.now();
    const turn = await service.turn();
    if (turn.kind !== 'idle') throw new Error(`expected an idle turn, got ${turn.kind}`);
    idle.push({ ms: performance.now() - started, reads: tally.reads, bytes: tally.bytes });
  }
  const due: { ms: number; reads: number; bytes: number }[] = [];
  for (let i = 0; i < TURNS; i += 1) {
    // The next event falls due: one check, carried to its two watches.
    const next = await service.turn();
    if (next.kind === 'idle' && next.nextAt !== undefined) clock.t = Math.max(clock.t, next.nextAt);
    tally.reads = 0;
    tally.bytes = 0;
    const started = performance.now();
    const turn = await service.turn();
    if (turn.kind !== 'checked') throw new Error(`expected a check, got ${turn.kind}`);
    due.push({ ms: performance.now() - started, reads: tally.reads, bytes: tally.bytes });
  }
  const row = (label: string, list: typeof idle) =>
    out(
      `  ${name.padEnd(8)} ${label.padEnd(11)} ${median(list.map((x) => x.ms))
        .toFixed(1)
        .padStart(8)} ms ` +
        `${String(median(list.map((x) => x.reads))).padStart(6)} reads ${String(Math.round(median(list.map((x) => x.bytes)) / 1024)).padStart(6)} KB read` +
        // The fastest turn: the figure other work on a shared machine moves least.
        `   fastest ${Math.min(...list.map((x) => x.ms)).toFixed(1)} ms`,
    );
  row('idle turn', idle);
  row('check turn', due);
  out(
    `  ${name.padEnd(8)} (set-up of ${EVENTS * WATCHERS} watches and ${EVENTS} first checks: ${(setUpMs / 1000).toFixed(1)} s)`,
  );
}

out(`Watch scheduler turn, ${EVENTS * WATCHERS} watches on ${EVENTS} events (median of ${TURNS} turns)`);
const sqlite = await openStore('sqlite://:memory:');
try {
  await measure('SQLite', sqlite);
} finally {
  await sqlite.close();
}
const redis = await startRedis();
// Should the process exit before the `finally` below (process.exit, as the benches test does with a
// run it gives up on), the redis-server goes with it: stop() signals it at once.
process.once('exit', () => void redis.stop());
try {
  const opened = await openStore(redis.url, { logger: silentLogger, namespace: 'bench' });
  try {
    await measure('Redis', opened);
  } finally {
    await opened.close();
  }
} finally {
  await redis.stop();
}
