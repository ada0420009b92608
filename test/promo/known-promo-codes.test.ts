import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { KnownPromoCodes } from '../../src/promo/known-promo-codes.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import { aheadClock } from '../helpers/clocks.js';

const EVENT = 'evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd';
const uuid = (n: number) => `3f2c1a9e-8b7d-4c6e-9f01-${String(n).padStart(12, '0')}`;
const promos = (codes: readonly string[], from = 0): EventReport =>
  ({
    promos: codes.map((code, i) => ({ id: `promo_${uuid(from + i)}`, code, quantity: 10, redeemed: 1 })),
  }) as EventReport;

let store: StoreHandle | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function known(options: { maxPerEvent?: number; ttlMs?: number } = {}) {
  store = await openStore('sqlite://:memory:');
  const clock = aheadClock();
  return { clock, codes: new KnownPromoCodes({ store: store.keyValue, clock, logger: silentLogger, ...options }) };
}

describe('KnownPromoCodes', () => {
  it('remembers the code -> id pairs a report names, in any case, for that event only', async () => {
    const { codes } = await known();
    await codes.remember(EVENT, promos(['EARLYBIRD', 'VIP']));
    expect(await codes.idOf(EVENT.slice(4), 'earlybird')).toMatchObject({ code: 'EARLYBIRD', id: `promo_${uuid(0)}` });
    expect(await codes.codeOf(EVENT, uuid(1))).toBe('VIP');
    expect(await codes.idOf('evt_3f2c1a9e-8b7d-4c6e-9f01-000000000000', 'EARLYBIRD')).toBeUndefined();
  });

  it('keeps codes from earlier reports when a later one names others, and never rows labelled by a name', async () => {
    const { codes } = await known();
    await codes.remember(EVENT, promos(['EARLYBIRD']));
    await codes.remember(EVENT, promos(['VIP', 'Early bird (staff)'], 5));
    expect((await codes.codes(EVENT)).map((each) => each.code).sort()).toEqual(['EARLYBIRD', 'VIP']);
  });

  it('keeps at most maxPerEvent codes, the most recently seen', async () => {
    const { codes, clock } = await known({ maxPerEvent: 3 });
    for (const [i, code] of ['A1', 'B2', 'C3', 'D4'].entries()) {
      clock.advance(1_000);
      await codes.remember(EVENT, promos([code], i));
    }
    expect((await codes.codes(EVENT)).map((each) => each.code)).toEqual(['D4', 'C3', 'B2']);
  });

  it('forgets a code no report has named for ttlMs', async () => {
    const { codes, clock } = await known({ ttlMs: 60_000 });
    await codes.remember(EVENT, promos(['EARLYBIRD']));
    clock.advance(30_000);
    await codes.remember(EVENT, promos(['VIP'], 1));
    clock.advance(40_000);
    expect((await codes.codes(EVENT)).map((each) => each.code)).toEqual(['VIP']);
  });
});
