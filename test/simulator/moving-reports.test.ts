import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';

interface Report {
  eventId: string;
  eventName: string;
  currency: string;
  generatedAt: string;
  ticketsSold: number;
  capacity: number;
  grossRevenue: number;
  netRevenue: number;
  checkIns: number;
  refunds: number;
  byCategory: { id: string; name: string; price: number; capacity: number; sold: number; revenue: number }[];
  salesByDay: { date: string; sold: number }[];
  promos: { id: string; code: string; redeemed: number; quantity: number }[];
}

const START = Date.UTC(2026, 10, 23, 11, 0);
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** A clock that stands still until the test moves it. */
function manualClock(at = START) {
  let now = at;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const open: Simulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sim) => sim.close()));
});

async function start(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({
    // Fewer events than the default 160, each kind the seed makes (hot, idle, steady) among them:
    // reading every report at every step is this file's whole cost.
    eventCount: 48,
    anchorMs: START,
    orgLimit: { limit: 1_000_000, windowMs: 60_000 },
    reportLimit: { limit: 1_000_000, windowMs: 60_000 },
    ...options,
  });
  open.push(sim);
  return sim;
}

async function report(sim: Simulator, id: string): Promise<Report> {
  const response = await fetch(`${sim.url}/v1/events/${id}/report`, {
    headers: { 'Service-Api-Key': sim.apiKeys[0] as string },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
}

async function updatePromo(sim: Simulator, eventId: string, promoId: string, quantity: number) {
  const response = await fetch(`${sim.url}/v1/events/${eventId}/promos/${promoId}/update`, {
    method: 'POST',
    headers: { 'Service-Api-Key': sim.apiKeys[0] as string, 'content-type': 'application/json' },
    body: JSON.stringify({ quantity }),
  });
  expect(response.status).toBe(200);
}

const byKind = (sim: Simulator, kind: string) =>
  sim.catalog.events.filter((event) => sim.salesProfile(event.id).kind === kind).map((event) => event.id);

function expectConsistent(r: Report): void {
  for (const category of r.byCategory) {
    expect(category.sold).toBeGreaterThanOrEqual(0);
    expect(category.sold).toBeLessThanOrEqual(category.capacity);
    expect(category.revenue).toBe(category.sold * category.price);
  }
  const total = (key: 'sold' | 'capacity' | 'revenue') => r.byCategory.reduce((sum, c) => sum + c[key], 0);
  expect(r.ticketsSold).toBe(total('sold'));
  expect(r.capacity).toBe(total('capacity'));
  expect(r.grossRevenue).toBe(total('revenue'));
  expect(r.netRevenue).toBe(Math.round(r.grossRevenue * 0.94 * 100) / 100);
  expect(r.refunds).toBe(Math.floor(r.ticketsSold * 0.02));
  expect(r.checkIns).toBeGreaterThanOrEqual(0);
  expect(r.checkIns).toBeLessThanOrEqual(r.ticketsSold);
  expect(r.salesByDay).toHaveLength(7);
  expect(r.salesByDay.reduce((sum, day) => sum + day.sold, 0)).toBeLessThanOrEqual(r.ticketsSold);
}

describe('simulator: reports that move with the clock', () => {
  it('keeps the report shape and takes generatedAt from the clock', async () => {
    const clock = manualClock();
    const sim = await start({ clock });
    const id = sim.catalog.events[0]?.id as string;
    const r = await report(sim, id);
    expect(Object.keys(r)).toEqual([
      'eventId',
      'eventName',
      'currency',
      'generatedAt',
      'ticketsSold',
      'capacity',
      'grossRevenue',
      'netRevenue',
      'checkIns',
      'refunds',
      'byCategory',
      'salesByDay',
      'promos',
    ]);
    expect(Object.keys(r.byCategory[0] ?? {})).toEqual(['id', 'name', 'price', 'capacity', 'sold', 'revenue']);
    expect(Object.keys(r.promos[0] ?? {})).toEqual(['id', 'code', 'redeemed', 'quantity']);
    expect(r.generatedAt).toBe(new Date(START).toISOString());
    clock.advance(90 * MINUTE);
    expect((await report(sim, id)).generatedAt).toBe(new Date(START + 90 * MINUTE).toISOString());
  });

  it('keeps every figure of a still simulator as it was, day after day', async () => {
    const clock = manualClock();
    const sim = await start({ clock });
    const ids = sim.catalog.events.map((event) => event.id);
    const before = await Promise.all(ids.map((id) => report(sim, id)));
    clock.advance(2 * 24 * HOUR);
    const after = await Promise.all(ids.map((id) => report(sim, id)));
    after.forEach((r, i) => {
      expect({ ...r, generatedAt: '' }).toEqual({ ...before[i], generatedAt: '' });
      expectConsistent(r);
    });
  });

  it('grows sales, check-ins and redemptions over time, consistent and within bounds', async () => {
    const clock = manualClock();
    const sim = await start({ clock, motion: 'moving' });
    const ids = sim.catalog.events.map((event) => event.id);
    let previous = await Promise.all(ids.map((id) => report(sim, id)));
    const first = previous;
    for (const step of [10 * MINUTE, HOUR, 6 * HOUR, 2 * 24 * HOUR]) {
      clock.advance(step);
      const current = await Promise.all(ids.map((id) => report(sim, id)));
      current.forEach((r, i) => {
        const was = previous[i] as Report;
        expectConsistent(r);
        expect(r.ticketsSold).toBeGreaterThanOrEqual(was.ticketsSold);
        expect(r.checkIns).toBeGreaterThanOrEqual(was.checkIns);
        r.byCategory.forEach((c, j) => {
          expect(c.sold).toBeGreaterThanOrEqual(was.byCategory[j]?.sold ?? 0);
        });
        r.promos.forEach((p, j) => {
          expect(p.redeemed).toBeGreaterThanOrEqual(was.promos[j]?.redeemed ?? 0);
          expect(p.redeemed).toBeLessThanOrEqual(p.quantity);
        });
      });
      previous = current;
    }
    const grown = previous.filter((r, i) => r.ticketsSold > (first[i] as Report).ticketsSold);
    expect(grown.length).toBeGreaterThan(ids.length / 3);
    expect(previous.some((r, i) => r.checkIns > (first[i] as Report).checkIns)).toBe(true);
    expect(previous.some((r, i) => r.promos.some((p, j) => p.redeemed > (first[i]?.promos[j]?.redeemed ?? 0)))).toBe(
      true,
    );
    // Idle events, drafts and cancelled ones sell nothing (their days go by with no sales).
    for (const id of byKind(sim, 'idle')) {
      const i = ids.indexOf(id);
      const figures = (r: Report | undefined) => ({ ...r, generatedAt: '', salesByDay: [] });
      expect(figures(previous[i])).toEqual(figures(first[i]));
    }
  });

  it('sells the last 10% of a hot event within minutes, then stays sold out', async () => {
    const clock = manualClock();
    const sim = await start({ clock, motion: 'moving' });
    const hot = byKind(sim, 'hot');
    expect(hot.length).toBeGreaterThanOrEqual(1);
    for (const id of hot) {
      const r = await report(sim, id);
      expect(r.ticketsSold / r.capacity).toBeGreaterThanOrEqual(0.8);
      expect(r.ticketsSold).toBeLessThan(r.capacity);
    }
    const soldOutAfter = new Map<string, number>();
    for (let minute = 1; minute <= 30; minute += 1) {
      clock.advance(MINUTE);
      for (const id of hot) {
        const r = await report(sim, id);
        expectConsistent(r);
        if (r.ticketsSold === r.capacity && !soldOutAfter.has(id)) soldOutAfter.set(id, minute);
        if (soldOutAfter.has(id)) expect(r.ticketsSold).toBe(r.capacity);
      }
    }
    expect(soldOutAfter.size).toBe(hot.length);
    clock.advance(6 * HOUR);
    for (const id of hot) {
      const r = await report(sim, id);
      expect(r.ticketsSold).toBe(r.capacity);
    }
  });

  it('redeems a rushed promo code up to its quantity and no further, and respects a changed quantity', async () => {
    const clock = manualClock();
    const sim = await start({ clock, motion: 'moving' });
    const eventId = byKind(sim, 'hot').find((id) => sim.salesProfile(id).rushPromoIds.length > 0) as string;
    const promoId = sim.salesProfile(eventId).rushPromoIds[0] as string;
    // A sold-out event redeems no codes: give this one room for the test.
    sim.setFigures(eventId, { ticketsSold: 0 });
    const redeemed = async () => {
      const promo = (await report(sim, eventId)).promos.find((p) => p.id === promoId);
      return { redeemed: promo?.redeemed ?? -1, quantity: promo?.quantity ?? -1 };
    };
    const first = await redeemed();
    expect(first.quantity - first.redeemed).toBeGreaterThanOrEqual(10);
    expect(first.quantity - first.redeemed).toBeLessThanOrEqual(15);
    clock.advance(3 * MINUTE);
    expect((await redeemed()).redeemed).toBeGreaterThan(first.redeemed);
    clock.advance(9 * MINUTE);
    expect(await redeemed()).toEqual({ redeemed: first.quantity, quantity: first.quantity });
    clock.advance(10 * MINUTE);
    expect((await redeemed()).redeemed).toBe(first.quantity);

    sim.setFigures(eventId, { ticketsSold: 0 });
    await updatePromo(sim, eventId, promoId, first.quantity + 5);
    expect((await redeemed()).redeemed).toBe(first.quantity);
    clock.advance(10 * MINUTE);
    expect(await redeemed()).toEqual({ redeemed: first.quantity + 5, quantity: first.quantity + 5 });

    await updatePromo(sim, eventId, promoId, 2);
    clock.advance(10 * MINUTE);
    expect(await redeemed()).toEqual({ redeemed: first.quantity + 5, quantity: 2 });
  });

  it('shows figures set by setFigures on the next report, and moves on from them', async () => {
    const clock = manualClock();
    const sim = await start({ clock, motion: 'moving' });
    const id = byKind(sim, 'steady')[0] as string;
    const promos = sim.catalog.promos.filter((promo) => promo.eventId === id);
    const [first, second] = promos as [(typeof promos)[0], (typeof promos)[0]];
    sim.setFigures(id.slice('evt_'.length), {
      capacity: 400,
      ticketsSold: 380,
      checkIns: 12,
      promos: {
        [first.code.toLowerCase()]: { redeemed: 3, quantity: 4 },
        [second.id.slice('promo_'.length)]: { quantity: 0 },
      },
    });
    const r = await report(sim, id);
    expectConsistent(r);
    expect(r).toMatchObject({ capacity: 400, ticketsSold: 380, checkIns: 12 });
    expect(r.byCategory.map((c) => c.capacity)).toEqual([240, 60, 100]);
    expect(r.promos.find((p) => p.id === first.id)).toMatchObject({ redeemed: 3, quantity: 4 });
    expect(r.promos.find((p) => p.id === second.id)?.quantity).toBe(0);

    clock.advance(3 * 24 * HOUR);
    const later = await report(sim, id);
    expectConsistent(later);
    expect(later.ticketsSold).toBeGreaterThanOrEqual(380);
    expect(later.ticketsSold).toBeLessThanOrEqual(400);
    expect(later.promos.find((p) => p.id === first.id)?.redeemed).toBeLessThanOrEqual(4);

    sim.setFigures(id, { ticketsSold: 10 });
    const lowered = await report(sim, id);
    expectConsistent(lowered);
    expect(lowered.ticketsSold).toBe(10);
    expect(lowered.checkIns).toBeLessThanOrEqual(10);
  });

  it('checks every figure before setting any', async () => {
    const sim = await start({ clock: manualClock() });
    const id = sim.catalog.events[0]?.id as string;
    const before = await report(sim, id);
    expect(() => sim.setFigures('evt_00000000-0000-4000-8000-000000000000', { ticketsSold: 1 })).toThrow(RangeError);
    expect(() => sim.setFigures(id, { ticketsSold: 1, capacity: 0 })).toThrow(/ticketsSold/);
    expect(() => sim.setFigures(id, { ticketsSold: 1.5 })).toThrow(RangeError);
    expect(() => sim.setFigures(id, { checkIns: before.ticketsSold + 1 })).toThrow(/checkIns/);
    expect(() => sim.setFigures(id, { ticketsSold: 0, promos: { NOPE: { quantity: 1 } } })).toThrow(/NOPE/);
    const code = before.promos[0]?.code as string;
    expect(() => sim.setFigures(id, { capacity: 1, promos: { [code]: { quantity: 1, redeemed: 2 } } })).toThrow(
      /redeemed/,
    );
    expect({ ...(await report(sim, id)), generatedAt: '' }).toEqual({ ...before, generatedAt: '' });
  });

  it('stops and starts one event or all, without making up what a stopped event missed', async () => {
    const clock = manualClock();
    const sim = await start({ clock, motion: 'moving' });
    const id = byKind(sim, 'hot')[0] as string;
    const startAt = await report(sim, id);
    sim.setMotion(id, 'still');
    clock.advance(HOUR);
    expect((await report(sim, id)).ticketsSold).toBe(startAt.ticketsSold);
    sim.setMotion(id, 'moving');
    expect((await report(sim, id)).ticketsSold).toBe(startAt.ticketsSold);
    clock.advance(10 * MINUTE);
    expect((await report(sim, id)).ticketsSold).toBeGreaterThan(startAt.ticketsSold);

    sim.setMotion('all', 'still');
    const frozen = await Promise.all(sim.catalog.events.map((event) => report(sim, event.id)));
    clock.advance(HOUR);
    const still = await Promise.all(sim.catalog.events.map((event) => report(sim, event.id)));
    still.forEach((r, i) => {
      expect({ ...r, generatedAt: '' }).toEqual({ ...frozen[i], generatedAt: '' });
    });

    const quiet = await start({ clock });
    const other = byKind(quiet, 'hot')[0] as string;
    const quietAt = await report(quiet, other);
    quiet.setMotion('all', 'moving');
    clock.advance(10 * MINUTE);
    expect((await report(quiet, other)).ticketsSold).toBeGreaterThan(quietAt.ticketsSold);
  });

  it('gives the same reports for the same seed and clock, however often they were read', async () => {
    const clock = manualClock();
    const often = await start({ clock, motion: 'moving', seed: 7 });
    const once = await start({ clock, motion: 'moving', seed: 7 });
    const ids = often.catalog.events.map((event) => event.id);
    expect(once.catalog.events.map((event) => event.id)).toEqual(ids);
    for (let step = 0; step < 12; step += 1) {
      clock.advance(13 * MINUTE + 7_000);
      await Promise.all(ids.map((id) => report(often, id)));
    }
    clock.advance(26 * HOUR);
    for (const id of ids) expect(await report(once, id)).toEqual(await report(often, id));

    const otherSeed = await start({ clock, motion: 'moving', seed: 8 });
    const kinds = (sim: Simulator) => sim.catalog.events.map((event) => sim.salesProfile(event.id).kind).join();
    expect(kinds(otherSeed)).not.toBe(kinds(often));
  });
});
