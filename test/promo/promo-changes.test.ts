import { afterEach, describe, expect, it } from 'vitest';
import { EventCatalog } from '../../src/catalog/event-catalog.js';
import { silentLogger } from '../../src/logger.js';
import { PendingPromoChanges } from '../../src/promo/pending-promo-changes.js';
import {
  cancelPromoChange,
  confirmPromoChange,
  type PromoDeps,
  type ProposeRequest,
  proposePromoChange,
} from '../../src/promo/promo-changes.js';
import { storeEventRecords } from '../../src/reports/event-record.js';
import type { SimPromo } from '../../src/simulator/seed.js';
import { ActivityStore } from '../../src/store/activity-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { type Rig, startRig } from '../helpers/ticketing.js';

/**
 * The promo use cases without Bolt, wired as `slack/adapters/promo-context.ts` wires them: the real client
 * against the simulator on loopback, the shared catalog, and SQLite in memory, on a clock the test
 * moves.
 */
class TestClock {
  constructor(public time: number) {}
  now = () => this.time;
}

const TTL_MS = 10 * 60_000;

interface PromoRig {
  rig: Rig;
  store: StoreHandle;
  clock: TestClock;
  editors: Set<string>;
  deps: PromoDeps;
  /** The pending changes as a restarted process sees them: a new instance on the same store. */
  reopen(): PromoDeps;
  close(): Promise<void>;
}

let current: PromoRig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function startPromoRig(): Promise<PromoRig> {
  const rig = await startRig({ eventCount: 20 });
  const store = await openStore('sqlite://:memory:');
  const clock = new TestClock(Date.now());
  const editors = new Set(['U0EDITOR', 'U0OTHER']);
  const events = new EventCatalog({ client: rig.client, orgLimit: { limit: 180, windowMs: 60_000 }, clock });
  const records = storeEventRecords(store.keyValue, clock);
  const build = (): PromoDeps => ({
    ticketing: rig.client,
    events,
    pending: new PendingPromoChanges({ store: store.keyValue, claims: store.claims, clock, ttlMs: TTL_MS }),
    activity: new ActivityStore(store.keyValue),
    record: { wrote: records.wrote, quantityNow: records.quantity },
    isEditor: async (userId) => editors.has(userId),
    interactive: () => ({ signal: AbortSignal.timeout(10_000), priority: 'interactive' }),
    clock,
    logger: silentLogger,
  });
  current = {
    rig,
    store,
    clock,
    editors,
    deps: build(),
    reopen: build,
    close: async () => {
      await store.close();
      await rig.close();
    },
  };
  return current;
}

const writes = (r: PromoRig) => r.rig.sim.stats().log.filter((entry) => entry.method === 'POST');

function promoAt(r: PromoRig, index: number): SimPromo {
  const promo = r.rig.sim.catalog.promos[index];
  if (!promo) throw new Error('no promo');
  return promo;
}

const request = (promo: SimPromo, quantity: number, userId = 'U0EDITOR'): ProposeRequest => ({
  userId,
  channelId: 'C0001',
  eventId: promo.eventId,
  promoId: promo.id,
  quantity,
});

/** Proposes a change and returns its id (the only thing the buttons carry). */
async function proposed(r: PromoRig, promo: SimPromo, quantity: number): Promise<string> {
  const result = await proposePromoChange(r.deps, request(promo, quantity));
  if (result.kind !== 'confirm') throw new Error(`expected a confirmation, got ${result.kind}`);
  return result.change.id;
}

const audit = async (r: PromoRig) =>
  (await r.deps.activity.promoAudit()).map((record) => [record.outcome, record.error ?? null]);

describe('proposePromoChange', () => {
  it('stores the change to be confirmed, valid for the TTL, and writes nothing', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 1);
    const before = promo.quantity;
    const result = await proposePromoChange(r.deps, request(promo, 40));
    expect(result).toMatchObject({ kind: 'confirm', event: { id: promo.eventId } });
    if (result.kind !== 'confirm') return;
    expect(result.change).toMatchObject({
      requestedBy: 'U0EDITOR',
      channelId: 'C0001',
      eventId: promo.eventId,
      promoId: promo.id,
      quantity: 40,
      createdAt: r.clock.time,
      expiresAt: r.clock.time + TTL_MS,
    });
    expect(await r.deps.pending.get(result.change.id)).toEqual(result.change);
    expect(writes(r)).toHaveLength(0);
    expect(promo.quantity).toBe(before);
  });

  it('refuses a non-editor before any request, and stores nothing', async () => {
    const r = await startPromoRig();
    const result = await proposePromoChange(r.deps, request(promoAt(r, 1), 40, 'U0VISITOR'));
    expect(result).toEqual({ kind: 'not-editor' });
    expect(r.rig.sim.stats().requests).toBe(0);
  });

  it('refuses a quantity out of range before any request', async () => {
    const r = await startPromoRig();
    const result = await proposePromoChange(r.deps, request(promoAt(r, 1), -1));
    expect(result.kind).toBe('failed');
    if (result.kind === 'failed') expect(result.error).toMatchObject({ code: 'invalid_input' });
    expect(r.rig.sim.stats().requests).toBe(0);
  });

  it('answers "no event" for an id the catalog does not list', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 1);
    const result = await proposePromoChange(r.deps, {
      ...request(promo, 40),
      eventId: 'evt_00000000-0000-4000-8000-000000000000',
    });
    expect(result).toMatchObject({ kind: 'no-event' });
    expect(writes(r)).toHaveLength(0);
  });
});

describe('confirmPromoChange', () => {
  it('applies a change once: a second click, a restarted process and a concurrent click are refused as used', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 2);
    const changeId = await proposed(r, promo, 40);
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toMatchObject({
      kind: 'updated',
      update: { quantity: 40 },
    });
    expect(promo.quantity).toBe(40);
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'used',
    });
    promo.quantity = 7; // changed since: a replayed click must not undo that
    expect(await confirmPromoChange(r.reopen(), { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'used',
    });
    expect(promo.quantity).toBe(7);
    expect(writes(r)).toHaveLength(1);
    expect(await audit(r)).toEqual([
      ['refused', 'used'],
      ['refused', 'used'],
      ['updated', null],
    ]);
  });

  it('lets exactly one of two simultaneous clicks through', async () => {
    const r = await startPromoRig();
    const changeId = await proposed(r, promoAt(r, 3), 12);
    const results = await Promise.all([
      confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' }),
      confirmPromoChange(r.reopen(), { changeId, userId: 'U0EDITOR' }),
    ]);
    expect(results.map((result) => result.kind).sort()).toEqual(['refused', 'updated']);
    expect(writes(r)).toHaveLength(1);
  });

  it('refuses an expired confirmation and writes nothing', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 4);
    const before = promo.quantity;
    const changeId = await proposed(r, promo, 99);
    r.clock.time += TTL_MS;
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'expired',
    });
    expect(writes(r)).toHaveLength(0);
    expect(promo.quantity).toBe(before);
    expect((await r.deps.activity.promoAudit())[0]).toMatchObject({ outcome: 'refused', error: 'expired', changeId });
  });

  it("refuses someone else's confirmation, even another editor's, and leaves it to the asker", async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 5);
    const changeId = await proposed(r, promo, 15);
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0OTHER' })).toEqual({
      kind: 'refused',
      refusal: 'not-yours',
    });
    expect(await cancelPromoChange(r.deps, { changeId, userId: 'U0OTHER' })).toEqual({
      kind: 'refused',
      refusal: 'not-yours',
    });
    expect(writes(r)).toHaveLength(0);
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toMatchObject({ kind: 'updated' });
    expect(promo.quantity).toBe(15);
  });

  it('refuses the asker once they are no longer an editor, without using the change up', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 6);
    const changeId = await proposed(r, promo, 8);
    r.editors.delete('U0EDITOR');
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'not-editor',
    });
    expect(writes(r)).toHaveLength(0);
    expect((await r.deps.activity.promoAudit())[0]).toMatchObject({ outcome: 'refused', error: 'not-editor' });
    r.editors.add('U0EDITOR');
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toMatchObject({ kind: 'updated' });
  });

  it('refuses a confirmation once the event was cancelled since the change was proposed, and audits it', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 7);
    const changeId = await proposed(r, promo, 9);
    // The catalog now reads the event as cancelled.
    const deps: PromoDeps = {
      ...r.deps,
      events: {
        lookup: async (eventId, options) => {
          const found = await r.deps.events.lookup(eventId, options);
          return found.event ? { ...found, event: { ...found.event, status: 'cancelled' } } : found;
        },
      },
    };
    expect(await confirmPromoChange(deps, { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'event-cancelled',
    });
    expect(writes(r)).toHaveLength(0);
    expect((await r.deps.activity.promoAudit())[0]).toMatchObject({ outcome: 'refused', error: 'event-cancelled' });
  });

  it('refuses an id it never issued (forged or malformed) and audits it as unknown', async () => {
    const r = await startPromoRig();
    for (const changeId of ['00000000-0000-4000-8000-000000000000', '{"q":999999999999}']) {
      expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({
        kind: 'refused',
        refusal: 'unknown',
      });
    }
    expect(writes(r)).toHaveLength(0);
    expect(await audit(r)).toEqual([
      ['refused', 'unknown'],
      ['refused', 'unknown'],
    ]);
  });

  it('reports a write the service never answered as unknown, not failed', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 7);
    const changeId = await proposed(r, promo, 250);
    r.rig.sim.knobs.faultKinds = ['drop-after'];
    r.rig.sim.knobs.faultRate = 1;
    const result = await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' });
    expect(result.kind).toBe('unknown');
    expect(promo.quantity).toBe(250);
    expect((await r.deps.activity.promoAudit())[0]).toMatchObject({ outcome: 'unknown', quantity: 250 });
  });
});

describe('cancelPromoChange', () => {
  it('uses the change up, so a later Confirm changes nothing', async () => {
    const r = await startPromoRig();
    const promo = promoAt(r, 8);
    const before = promo.quantity;
    const changeId = await proposed(r, promo, 33);
    expect(await cancelPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({ kind: 'cancelled' });
    expect(await cancelPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'used',
    });
    expect(await confirmPromoChange(r.deps, { changeId, userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'used',
    });
    expect(writes(r)).toHaveLength(0);
    expect(promo.quantity).toBe(before);
  });

  it('does not know an id it never issued', async () => {
    const r = await startPromoRig();
    expect(await cancelPromoChange(r.deps, { changeId: 'nope', userId: 'U0EDITOR' })).toEqual({
      kind: 'refused',
      refusal: 'unknown',
    });
  });
});
