import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityStore } from '../../src/store/activity-store.js';
import { openStore } from '../../src/store/open-store.js';

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
    await expect(openStore('redis://127.0.0.1:6379')).rejects.toThrow(
      'STORE_URL must be sqlite://<path> (got a "redis" URL)',
    );
  });
});
