import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SubscriptionStore } from '../../src/digest/subscription-store.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { ActivityStore } from '../../src/store/activity-store.js';
import { StoreError } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import { faultyAdapter, type StoreFaults } from '../helpers/faulty-store.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('ActivityStore on a real SQLite file', () => {
  it('keeps the audit trail and recent activity across a restart, newest first', async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventops-store-'));
    const url = `sqlite://${join(dir, 'nested', 'eventops.sqlite')}`;
    const first = await openStore(url);
    const store = new ActivityStore(first.keyValue);
    const change = {
      at: '2026-11-22T10:00:00.000Z',
      userId: 'U1',
      channelId: 'C1',
      eventId: 'evt_1',
      promoId: 'promo_1',
      outcome: 'updated' as const,
    };
    await Promise.all([1, 2, 3].map((quantity) => store.recordPromoChange({ ...change, quantity })));
    await store.recordReport({ at: '2026-11-22T10:01:00.000Z', userId: 'U1', eventId: 'evt_1' });
    await first.close();

    const second = await openStore(url);
    const reopened = new ActivityStore(second.keyValue);
    const audit = await reopened.promoAudit();
    expect(audit).toHaveLength(3);
    expect(new Set(audit.map((record) => record.quantity))).toEqual(new Set([1, 2, 3]));
    expect((await reopened.recent('U1')).reports).toEqual([
      { at: '2026-11-22T10:01:00.000Z', userId: 'U1', eventId: 'evt_1' },
    ]);
    expect(await reopened.recent('U2')).toEqual({ reports: [], promoChanges: [] });
    await second.close();
  });

  it('refuses a STORE_URL it cannot open, naming the scheme', async () => {
    await expect(openStore('memcached://127.0.0.1:11211')).rejects.toThrow(
      'STORE_URL must start with sqlite://, redis:// or rediss:// (got a "memcached" URL)',
    );
  });

  it('fails fast, naming the address but no password, when Redis is not there', async () => {
    const started = Date.now();
    const error = await openStore('redis://user:s3cret-pass@127.0.0.1:9/0').catch((e: unknown) => e);
    expect(String(error)).toContain('could not reach Redis at redis://127.0.0.1:9/0');
    expect(String(error)).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('the promo audit keeps changes apart from refusals', () => {
  const record = (at: number, outcome: 'updated' | 'refused', quantity = 1) => ({
    at: new Date(Date.UTC(2026, 10, 1) + at).toISOString(),
    userId: outcome === 'refused' ? 'U0LOOP' : 'U0EDITOR',
    channelId: '',
    eventId: 'evt_1',
    promoId: 'promo_1',
    quantity,
    outcome,
  });

  it('keeps a change however many refusals come after it (a workflow run in a loop by a non-editor)', async () => {
    const opened = await openStore('sqlite://:memory:');
    // The caps made small (1,000 in production), so the loop is short.
    const store = new ActivityStore(opened.keyValue, { refusalsKept: 20, changesKeptAtLeast: 20 });
    await store.recordPromoChange(record(0, 'updated', 42));
    for (let i = 1; i <= 30; i += 1) await store.recordPromoChange(record(i * 1_000, 'refused'));
    const audit = await store.promoAudit();
    expect(audit.filter((r) => r.outcome === 'refused')).toHaveLength(20);
    expect(audit.at(-1)).toMatchObject({ outcome: 'updated', quantity: 42 });
    await opened.close();
  });

  it('keeps changes for 90 days (beyond the newest N), or the newest N when the operator says so', async () => {
    const day = 86_400_000;
    const small = { changesKeptAtLeast: 10 };
    const opened = await openStore('sqlite://:memory:');
    const byDays = new ActivityStore(opened.keyValue, small);
    // 40 changes over 120 days: the newest 10 are kept whatever their age, and older ones only
    // while they are within 90 days of the newest (those from day 27 on: 31 of them).
    for (let i = 0; i < 40; i += 1) await byDays.recordPromoChange(record(i * 3 * day, 'updated', i));
    const kept = (await byDays.promoAudit()).map((r) => r.quantity);
    expect(kept).toHaveLength(31);
    expect(kept[0]).toBe(39);
    await opened.close();

    const again = await openStore('sqlite://:memory:');
    const long = new ActivityStore(again.keyValue, { ...small, keep: { days: 365 } });
    for (let i = 0; i < 40; i += 1) await long.recordPromoChange(record(i * 3 * day, 'updated', i));
    expect(await long.promoAudit()).toHaveLength(40);
    const counted = new ActivityStore(again.keyValue, { keep: { count: 5 } });
    await counted.recordPromoChange(record(40 * 3 * day, 'updated', 40));
    expect((await counted.promoAudit()).map((r) => r.quantity)).toEqual([40, 39, 38, 37, 36]);
    await again.close();
  });
});

describe('store errors surface; nothing is overwritten by a failed read', () => {
  it('throws StoreError on a failed read and keeps the audit list it could not read', async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventops-store-'));
    const faults: StoreFaults = { reads: false, writes: false };
    const logs: string[] = [];
    const opened = await openStore(`sqlite://${join(dir, 'eventops.sqlite')}`, {
      wrapAdapter: (adapter) => faultyAdapter(adapter, faults),
      logger: createLogger({ write: (line) => logs.push(line) }),
    });
    const store = new ActivityStore(opened.keyValue);
    const change = (quantity: number) => ({
      at: '2026-11-22T10:00:00.000Z',
      userId: 'U1',
      channelId: 'C1',
      eventId: 'evt_1',
      promoId: 'promo_1',
      quantity,
      outcome: 'updated' as const,
    });
    await store.recordPromoChange(change(1));
    await store.recordPromoChange(change(2));

    faults.reads = true;
    await expect(store.recordPromoChange(change(3))).rejects.toBeInstanceOf(StoreError);
    await expect(store.promoAudit()).rejects.toBeInstanceOf(StoreError);
    expect(logs.some((line) => line.includes('"level":"error"') && line.includes('SQLITE_IOERR'))).toBe(true);

    faults.reads = false;
    expect((await store.promoAudit()).map((record) => record.quantity)).toEqual([2, 1]);
    faults.writes = true;
    await expect(store.recordReport({ at: 'x', userId: 'U1', eventId: 'evt_1' })).rejects.toBeInstanceOf(StoreError);
    await opened.close();
  });

  it('keeps the digest channel index when a read of it fails', async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventops-store-'));
    const faults: StoreFaults = { reads: false, writes: false };
    const opened = await openStore(`sqlite://${join(dir, 'eventops.sqlite')}`, {
      wrapAdapter: (adapter) => faultyAdapter(adapter, faults),
    });
    const subscriptions = new SubscriptionStore(opened.keyValue, silentLogger);
    const subscription = (channelId: string) => ({
      channelId,
      time: '09:00',
      timezone: 'UTC',
      days: 1,
      skipEmpty: false,
      createdBy: 'U1',
      createdAt: '2026-11-22T00:00:00Z',
      status: 'active' as const,
    });
    await subscriptions.put(subscription('C1'));
    faults.reads = true;
    await expect(subscriptions.put(subscription('C2'))).rejects.toBeInstanceOf(StoreError);
    faults.reads = false;
    expect((await subscriptions.all()).map((s) => s.channelId)).toEqual(['C1']);
    await opened.close();
  });

  it('updates one key atomically when two commands append at once', async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventops-store-'));
    const opened = await openStore(`sqlite://${join(dir, 'eventops.sqlite')}`);
    const store = new ActivityStore(opened.keyValue);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.recordReport({ at: String(i), userId: 'U1', eventId: `evt_${i}` })),
    );
    expect((await store.recent('U1')).reports).toHaveLength(20);
    await opened.close();
  });
});
