import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { KeyValueStore } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { type Watch, watchKey } from '../../src/watches/watch.js';
import { WatchStore } from '../../src/watches/watch-store.js';

const T0 = Date.parse('2026-12-01T09:00:00Z');
const DAY = 86_400_000;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function opened(): Promise<StoreHandle> {
  const store = await openStore('sqlite://:memory:');
  cleanup.push(() => store.close());
  return store;
}

const watch = (channel: string, eventId: string, overrides: Partial<Watch> = {}): Watch => ({
  channel,
  personal: false,
  eventId,
  eventName: 'Jazz Night',
  endsAtMs: T0 + 7 * DAY,
  startsAtMs: T0 + 6 * DAY,
  datesAsOf: T0,
  setBy: 'U0ALICE',
  createdAt: T0,
  conditions: [],
  ...overrides,
});

/** A store whose reads of `key` wait for `open()`: an order forced, not hoped for. */
function gatedOn(inner: KeyValueStore, key: string) {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached: () => void = () => undefined;
  const waiting = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let armed = true;
  const store: KeyValueStore = {
    ...inner,
    get: async <T>(k: string) => {
      if (armed && k === key) {
        armed = false;
        const value = await inner.get<T>(k);
        reached();
        await gate;
        return value;
      }
      return inner.get<T>(k);
    },
    update: (k, change) => inner.update(k, change),
    exclusive: (k, work, options) => inner.exclusive(k, work, options),
    section: (k, work, options) => inner.section(k, work, options),
  };
  return { store, open: () => open(), waiting };
}

const scheduled = async (store: WatchStore) =>
  (await store.schedule()).flatMap((e) => e.watches.map((w) => `${w.channel} ${e.eventId}`)).sort();

describe('WatchStore: the schedule stays with the watches', () => {
  it('a condition written while the watch is removed does not bring its schedule entry back', async () => {
    const s = await opened();
    const store = new WatchStore(s.keyValue, silentLogger);
    await store.update('C1', 'evt_a', () => watch('C1', 'evt_a'));
    await Promise.all([
      store.update('C1', 'evt_a', (current) => current && { ...current, cardTs: '1.000100' }),
      store.remove('C1', 'evt_a'),
    ]);
    expect(await store.get('C1', 'evt_a')).toBeUndefined();
    expect(await scheduled(store)).toEqual([]);
    expect(await s.keyValue.get('watch:index')).toEqual([]);
  });

  it('a pause written just before the watch is removed leaves no entry: the write is checked after', async () => {
    const s = await opened();
    const store = new WatchStore(s.keyValue, silentLogger);
    await store.update('C1', 'evt_a', () => watch('C1', 'evt_a'));
    // The pause is written; before its schedule entry is, the unwatch runs to its end.
    const gated = gatedOn(s.keyValue, 'watch:schedule');
    const slow = new WatchStore(gated.store, silentLogger);
    const pausing = slow.update('C1', 'evt_a', (current) => current && { ...current, paused: { reason: 'x', at: T0 } });
    await gated.waiting;
    await store.remove('C1', 'evt_a');
    gated.open();
    await pausing;
    expect(await store.get('C1', 'evt_a')).toBeUndefined();
    expect(await scheduled(store)).toEqual([]);
  });

  it('the hourly mend adds a watch it lacks and keeps one set while it read: it never writes back an old read', async () => {
    const s = await opened();
    const store = new WatchStore(s.keyValue, silentLogger);
    await store.update('C1', 'evt_a', () => watch('C1', 'evt_a'));
    // A watch whose schedule entry was lost (a replica died between the two writes).
    await s.keyValue.set(watchKey('C2', 'evt_lost'), watch('C2', 'evt_lost'));
    await s.keyValue.update<string[]>('watch:index', (keys = []) => [...keys, watchKey('C2', 'evt_lost')]);
    // The mend reads the watches; a new watch is set before it writes anything.
    const gated = gatedOn(s.keyValue, watchKey('C1', 'evt_a'));
    const mending = new WatchStore(gated.store, silentLogger).reconcile();
    await gated.waiting;
    await store.update('C3', 'evt_new', () => watch('C3', 'evt_new'));
    gated.open();
    expect(await mending).toEqual({ added: 1, removed: 0 });
    expect(await scheduled(store)).toEqual(['C1 evt_a', 'C2 evt_lost', 'C3 evt_new']);
  });

  it('a store written before the schedule: derived once, keeping the check while a watch remains and a failure’s time', async () => {
    const s = await opened();
    // As a version without the schedule left it: two channels watch evt_a, its check failed lately.
    for (const channel of ['C1', 'C2']) await s.keyValue.set(watchKey(channel, 'evt_a'), watch(channel, 'evt_a'));
    await s.keyValue.set('watch:index', [watchKey('C1', 'evt_a'), watchKey('C2', 'evt_a')]);
    await s.keyValue.set('watch-check:evt_a', {
      eventId: 'evt_a',
      checkedAt: T0,
      report: { ticketsSold: 3 },
      checks: 1,
    });
    await s.keyValue.set('watch-check-failed:evt_a', T0 + 60_000);
    const store = new WatchStore(s.keyValue, silentLogger);
    await store.remove('C1', 'evt_a');
    expect((await store.lastCheck('evt_a'))?.checkedAt).toBe(T0);
    const [event] = await store.schedule();
    expect(event).toMatchObject({ eventId: 'evt_a', checkedAt: T0, failedAt: T0 + 60_000 });
    expect(event?.watches.map((w) => w.channel)).toEqual(['C2']);
    expect(await s.keyValue.get('watch-check-failed:evt_a')).toBeUndefined();
  });

  it('holds a place for a new watch atomically: many at once pass the person’s limit no more than it allows', async () => {
    const s = await opened();
    const a = new WatchStore(s.keyValue, silentLogger);
    const b = new WatchStore(s.keyValue, silentLogger);
    const limits = { perConversation: 50, perPerson: 2 };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? a : b).reserve({ channel: `C${i}`, eventId: 'evt_a', by: 'U0ALICE' }, limits),
      ),
    );
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(2);
    expect(answers.filter((answer) => answer?.kind === 'too-many-for-person')).toHaveLength(6);
  });
});
