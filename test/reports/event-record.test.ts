import { afterEach, describe, expect, it } from 'vitest';
import { type EventRecords, storeEventRecords } from '../../src/reports/event-record.js';
import type { FetchReport } from '../../src/reports/report-reads.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import { ManualClock } from '../helpers/clocks.js';

/*
 * The event record's rules on a real SQLite store: what a read and a promo write leave known, and
 * in which order they win.
 */

const EVENT = 'evt_11111111-1111-4111-8111-111111111111';
const PROMO = 'promo_22222222-2222-4222-8222-222222222222';

const reportWith = (quantity: number, sold = 10): EventReport => ({
  ticketsSold: sold,
  promos: [{ id: PROMO, code: 'EARLYBIRD', quantity, redeemed: 3 }],
});

let store: StoreHandle | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function records(clock: ManualClock): Promise<EventRecords> {
  store = await openStore('sqlite://:memory:');
  return storeEventRecords(store.keyValue, clock);
}

/** A fetch that answers `report` once `release` is called: a read whose answer comes later. */
function slowFetch(report: EventReport) {
  let release = () => {};
  const answered = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetch: FetchReport = async () => {
    await answered;
    return report;
  };
  return { fetch, release };
}

describe('the event record', () => {
  it('knows a promo write at once, and a report read after it replaces it', async () => {
    const clock = new ManualClock(1_000);
    const record = await records(clock);
    await record.reading(async () => reportWith(40))(EVENT, {});
    expect(await record.quantity(EVENT, PROMO)).toEqual({ quantity: 40, at: 1_000 });

    clock.time = 2_000;
    await record.wrote(EVENT, PROMO, 35);
    expect(await record.quantity(EVENT, PROMO)).toEqual({ quantity: 35, at: 2_000 });
    // Every report handed out carries it, a cached one read before the write too.
    expect((await record.current(EVENT, reportWith(40))).promos).toEqual([
      { id: PROMO, code: 'EARLYBIRD', quantity: 35, redeemed: 3 },
    ]);
    expect((await record.get(EVENT))?.readAt).toBe(1_000);

    // The service's own answer, read after the write, is what is known from then on.
    clock.time = 3_000;
    await record.reading(async () => reportWith(36, 12))(EVENT, {});
    expect(await record.quantity(EVENT, PROMO)).toEqual({ quantity: 36, at: 3_000 });
  });

  it('keeps a write over a read sent before it, and an older read answered late changes nothing', async () => {
    const clock = new ManualClock(1_000);
    const record = await records(clock);
    await record.reading(async () => reportWith(40))(EVENT, {});

    // A read goes out, then the write is answered, then the read's answer comes (without it).
    clock.time = 2_000;
    const early = slowFetch(reportWith(40, 11));
    const reading = record.reading(early.fetch)(EVENT, {});
    clock.time = 2_500;
    await record.wrote(EVENT, PROMO, 35);
    early.release();
    await reading;
    expect(await record.quantity(EVENT, PROMO)).toEqual({ quantity: 35, at: 2_500 });
    expect((await record.get(EVENT))?.report.ticketsSold).toBe(11);

    // A read sent before the one recorded, answered after it: the record stays as it is.
    const late = slowFetch(reportWith(99, 5));
    clock.time = 1_500;
    const stale = record.reading(late.fetch)(EVENT, {});
    late.release();
    await stale;
    expect((await record.get(EVENT))?.report.ticketsSold).toBe(11);
    expect(await record.quantity(EVENT, PROMO)).toEqual({ quantity: 35, at: 2_500 });
  });
});
