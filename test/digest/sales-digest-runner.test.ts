import { afterEach, describe, expect, it } from 'vitest';
import { type SalesDigestMessageInput, salesDigestComposer } from '../../src/digest/digest-composers.js';
import { type DigestMetadata, DigestRunner } from '../../src/digest/digest-runner.js';
import { newSubscription, salesKey } from '../../src/digest/subscription.js';
import { SubscriptionStore } from '../../src/digest/subscription-store.js';
import { SalesHistory } from '../../src/history/sales-history.js';
import { silentLogger } from '../../src/logger.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { shown } from '../helpers/shown.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 30 November 2026, 08:00 UTC. */
const MONDAY = Date.UTC(2026, 10, 30, 8, 0);

type Message = { kind: 'events'; date: string } | { kind: 'sales'; input: SalesDigestMessageInput };

async function harness() {
  const store: StoreHandle = await openStore('sqlite://:memory:');
  cleanup.push(() => store.close());
  const clock = {
    time: MONDAY,
    now() {
      return this.time;
    },
  };
  const history = new SalesHistory({ store: store.keyValue, logger: silentLogger });
  const subscriptions = new SubscriptionStore(store.keyValue, silentLogger);
  const posts: { channel: string; message: Message; metadata: DigestMetadata }[] = [];
  const watchedIn: Record<string, { eventId: string; eventName: string; startsAtMs: number | undefined }[]> = {
    C1: [
      { eventId: 'evt_jazz', eventName: 'Jazz Night', startsAtMs: MONDAY + 30 * DAY },
      // Watched twice (two watches of one event would be one card, but the list is not trusted to be unique).
      { eventId: 'evt_jazz', eventName: 'Jazz Night', startsAtMs: MONDAY + 30 * DAY },
      { eventId: 'evt_gala', eventName: 'Gala', startsAtMs: undefined },
    ],
  };
  const runner = new DigestRunner<Message>({
    subscriptions,
    claims: store.claims,
    catalog: { all: async () => [] },
    messages: {
      digest: (input) => ({ kind: 'events', date: input.date }),
      paused: () => ({ kind: 'events', date: 'paused' }),
    },
    sales: salesDigestComposer<Message>({
      watched: async (conversation) => (watchedIn[conversation] ?? []).map(shown),
      history,
      finished: async () => [],
      message: (input) => ({ kind: 'sales', input }),
      clock,
    }),
    post: async (channel, message, metadata) => {
      posts.push({ channel, message, metadata });
    },
    findPosted: async (channel, metadata) =>
      posts.some(
        (p) =>
          p.channel === channel &&
          p.metadata.event_payload.subscription === metadata.event_payload.subscription &&
          p.metadata.event_payload.date === metadata.event_payload.date,
      ),
    notify: async () => {},
    channelRefusal: () => undefined,
    clock,
    logger: silentLogger,
  });
  cleanup.push(async () => runner.stop());
  return { clock, history, subscriptions, posts, runner };
}

const salesInput = (message: Message | undefined): SalesDigestMessageInput => {
  if (message?.kind !== 'sales') throw new Error(`not a sales digest: ${JSON.stringify(message)}`);
  return message.input;
};

describe('the sales digest in the digest runner, with a moved clock', () => {
  it('posts weekly on its day, each covering the sales since the previous one, from the history alone', async () => {
    const h = await harness();
    // Gala's start is known to neither its watch nor its history: it cannot be forecast, so it is left out.
    for (let day = 14; day >= 0; day -= 1)
      await h.history.record('evt_jazz', { at: MONDAY - day * DAY - HOUR, sold: 200 - day * 10, capacity: 500 });
    const { subscription } = newSubscription(
      { time: '08:00', timezone: 'UTC', days: 1, skipEmpty: false, sales: { cadence: 'weekly' } },
      { channelId: 'C1', userId: 'U1', personZone: undefined, now: MONDAY - DAY },
    );
    expect(subscription).toMatchObject({ kind: 'sales', cadence: 'weekly', weekdays: [1] });
    await h.subscriptions.put(subscription);
    const key = salesKey('C1');

    expect(await h.runner.fire(key, { scheduledAt: MONDAY })).toMatchObject({ kind: 'sent', date: '2026-11-30' });
    const first = salesInput(h.posts[0]?.message);
    expect(h.posts[0]?.channel).toBe('C1');
    expect(h.posts[0]?.metadata.event_payload).toEqual({ subscription: key, date: '2026-11-30' });
    // The first covers the week before it.
    expect(first.since).toBe(MONDAY - 7 * DAY);
    expect(first.cadence).toBe('weekly');
    expect(first.entries.map((e) => e.eventId)).toEqual(['evt_jazz']);
    expect(first.entries[0]?.soldSince).toBeCloseTo(200 - (130 + 10 / 24), 5);

    // Tuesday: not its day.
    h.clock.time = MONDAY + DAY;
    expect(await h.runner.fire(key, { scheduledAt: h.clock.time })).toMatchObject({ kind: 'not-this-weekday' });
    expect(h.posts).toHaveLength(1);

    // A week of sales later, the next Monday covers exactly the week since the first.
    for (let day = 1; day <= 7; day += 1)
      await h.history.record('evt_jazz', { at: MONDAY + day * DAY - HOUR, sold: 200 + day * 20, capacity: 500 });
    h.clock.time = MONDAY + 7 * DAY + 5_000;
    expect(await h.runner.fire(key, { scheduledAt: MONDAY + 7 * DAY })).toMatchObject({
      kind: 'sent',
      date: '2026-12-07',
    });
    const second = salesInput(h.posts[1]?.message);
    expect(second.since).toBe(MONDAY);
    expect(second.entries[0]?.soldSince).toBeCloseTo(340 - (200 + 20 / 24), 5);
    expect((await h.subscriptions.get(key))?.lastSentAt).toBe(new Date(h.clock.time).toISOString());

    // The same date again (a second fire, a manual run): not posted twice.
    expect(await h.runner.fire(key, { scheduledAt: MONDAY + 7 * DAY })).toMatchObject({ kind: 'already-sent' });
    expect(await h.runner.fire(key, { manual: true })).toMatchObject({ kind: 'already-sent' });
    expect(h.posts).toHaveLength(2);
  });

  it('keeps the channel’s event digest apart: its own key, claim and metadata on the same date', async () => {
    const h = await harness();
    const sales = newSubscription(
      { time: '08:00', timezone: 'UTC', days: 1, skipEmpty: false, sales: { cadence: 'daily' } },
      { channelId: 'C1', userId: 'U1', personZone: undefined, now: MONDAY - DAY },
    ).subscription;
    const events = newSubscription(
      { time: '08:00', timezone: 'UTC', days: 1, skipEmpty: false },
      { channelId: 'C1', userId: 'U1', personZone: undefined, now: MONDAY - DAY },
    ).subscription;
    await h.subscriptions.put(sales);
    await h.subscriptions.put(events);
    expect((await h.subscriptions.all()).map((s) => s.kind ?? 'events').sort()).toEqual(['events', 'sales']);

    expect(await h.runner.fire('C1', { scheduledAt: MONDAY })).toMatchObject({ kind: 'sent' });
    expect(await h.runner.fire(salesKey('C1'), { scheduledAt: MONDAY })).toMatchObject({ kind: 'sent' });
    expect(h.posts.map((p) => [p.channel, p.message.kind, p.metadata.event_payload.subscription])).toEqual([
      ['C1', 'events', 'C1'],
      ['C1', 'sales', 'sales~C1'],
    ]);
    // An empty sales digest (nothing with a known start watched in C9) is still posted unless it skips empty ones.
    const empty = newSubscription(
      { time: '08:00', timezone: 'UTC', days: 1, skipEmpty: true, sales: { cadence: 'daily' } },
      { channelId: 'C9', userId: 'U1', personZone: undefined, now: MONDAY - DAY },
    ).subscription;
    await h.subscriptions.put(empty);
    expect(await h.runner.fire(salesKey('C9'), { scheduledAt: MONDAY })).toMatchObject({ kind: 'skipped-empty' });
    // Removing one leaves the other.
    await h.subscriptions.remove(salesKey('C1'));
    expect(await h.subscriptions.get('C1')).toBeDefined();
    expect(await h.subscriptions.get(salesKey('C1'))).toBeUndefined();
  });
});
