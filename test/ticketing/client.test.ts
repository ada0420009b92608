import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { isTicketingError } from '../../src/ticketing/errors.js';
import { aheadClock } from '../helpers/clocks.js';
import { type Rig, runPool, startRig } from '../helpers/ticketing.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('TicketingClient: pagination', () => {
  it('crawls N events in exactly ceil(N/100) requests with no 429', async () => {
    rig = await startRig({ eventCount: 250 });
    const ids: string[] = [];
    for await (const event of rig.client.events({ priority: 'background' })) ids.push(event.id);
    expect(ids).toEqual(rig.sim.catalog.events.map((event) => event.id));
    const stats = rig.sim.stats();
    expect(stats.requests).toBe(3);
    expect(stats.rateLimited).toBe(0);
  });

  it('passes the cursor back verbatim and URL-encoded, and sends nothing after a break', async () => {
    rig = await startRig({ eventCount: 250 });
    let seen = 0;
    for await (const page of rig.client.eventPages({ limit: 10 })) {
      seen += page.items.length;
      if (seen >= 20) break;
    }
    const log = rig.sim.stats().log;
    expect(log).toHaveLength(2);
    expect(log[0]?.path).toBe('/v1/events?limit=10');
    expect(log[1]?.path).toMatch(/^\/v1\/events\?limit=10&nextCursor=[^&]+$/);
  });

  it('clamps the page size to 1..100', async () => {
    rig = await startRig();
    await rig.client.listEvents({ limit: 1000 });
    await rig.client.listEvents({ limit: 0 });
    await rig.client.listEvents({ limit: 2.7 });
    expect(rig.sim.stats().log.map((entry) => entry.path)).toEqual([
      '/v1/events?limit=100',
      '/v1/events?limit=1',
      '/v1/events?limit=2',
    ]);
  });
});

describe('TicketingClient: the organization budget', () => {
  it('meets three times the budget with no 429 and at least 95% of the budget used', async () => {
    // A window of a second: 29 requests in 600 ms were once more than a starved two-core machine
    // (another process spinning on one core) sent, with the budget open.
    const orgLimit = { limit: 30, windowMs: 1_000 };
    rig = await startRig({ orgLimit });
    const client = rig.client;
    await runPool(90, 15, () => client.listEvents({ limit: 1 }));
    const stats = rig.sim.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.mostInAWindow.organization).toBeLessThanOrEqual(30);
    // Every window the demand spanned, but the last, was (nearly) full.
    const full = stats.organizationWindows.slice(0, -1);
    expect(full.length).toBeGreaterThanOrEqual(2);
    for (const count of full) expect(count).toBeGreaterThanOrEqual(Math.ceil(0.95 * orgLimit.limit));
  });

  it('slows to what the headers leave after another key of the organization spent most of the budget', async () => {
    const orgLimit = { limit: 40, windowMs: 750 };
    rig = await startRig({ orgLimit });
    const otherKey = rig.sim.apiKeys[1] as string;
    for (let i = 0; i < 34; i += 1) {
      await fetch(`${rig.sim.url}/v1/events?limit=1`, { headers: { 'Service-Api-Key': otherKey } });
    }
    const client = rig.client;
    const results = await runPool(30, 6, () => client.listEvents({ limit: 1 }));
    expect(results).toHaveLength(30);
    const stats = rig.sim.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.mostInAWindow.organization).toBeLessThanOrEqual(40);
  });

  it('after an idle gap, does not burst into a window another key is spending', async () => {
    const orgLimit = { limit: 20, windowMs: 600 };
    // The simulator and the client read one clock, moved ahead over the idle stretches.
    const clock = aheadClock();
    rig = await startRig({ orgLimit, clock }, { clock });
    const client = rig.client;
    await client.listEvents({ limit: 1 });
    // Idle for several windows. Then, late in a server window (its reset well before the client's
    // own guess of "now + one window"), another key spends most of it.
    clock.advance(2_000);
    const otherKey = rig.sim.apiKeys[1] as string;
    const other = () => fetch(`${rig?.sim.url}/v1/events?limit=1`, { headers: { 'Service-Api-Key': otherKey } });
    const resetIn = Number((await other()).headers.get('x-ratelimit-reset'));
    clock.advance(resetIn + 380); // 220 ms before the next reset
    for (let i = 0; i < 16; i += 1) await other();
    await runPool(20, 10, () => client.listEvents({ limit: 1 }));
    const stats = rig.sim.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.mostInAWindow.organization).toBeLessThanOrEqual(20);
  });

  it('meets three times the budget of a server counting a rolling window with no 429', async () => {
    const orgLimit = { limit: 20, windowMs: 300 };
    rig = await startRig({ orgLimit, windowKind: 'sliding' });
    const client = rig.client;
    const results = await runPool(60, 12, () => client.listEvents({ limit: 1 }));
    expect(results).toHaveLength(60);
    const stats = rig.sim.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.mostInAnySpan.organization).toBeLessThanOrEqual(20);
  });

  it('caps an X-RateLimit-Reset sent as epoch seconds at one window instead of waiting for weeks', async () => {
    const orgLimit = { limit: 10, windowMs: 200 };
    const lines: string[] = [];
    rig = await startRig(
      { orgLimit, resetFormat: 'epoch-seconds' },
      { logger: createLogger({ level: 'warn', write: (line) => lines.push(line) }) },
    );
    const client = rig.client;
    const started = Date.now();
    await runPool(25, 5, () => client.listEvents({ limit: 1 }));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(lines.filter((line) => line.includes('X-RateLimit-Reset'))).toHaveLength(1);
  });

  it('lets an interactive request overtake a background crawl waiting in the queue', async () => {
    // 5 a window with a 15% reserve: background work gets 4, the last one is kept for people. A
    // long window keeps the crawl's fifth page queued for seconds, so a loaded machine still sees
    // it waiting (a 500 ms window let the whole crawl end before the first look).
    rig = await startRig({ orgLimit: { limit: 5, windowMs: 5_000 }, eventCount: 600 });
    const client = rig.client;
    const order: string[] = [];
    let pages = 0;
    const crawl = (async () => {
      for await (const _page of client.eventPages({ priority: 'background' })) order.push(`page ${++pages}`);
    })();
    await waitFor(async () => (await client.budget()).queued.background > 0, { what: 'the crawl to queue' });
    const waitingBehind = pages;
    await client.listEvents({ limit: 1, priority: 'interactive' });
    order.push('interactive');
    await crawl;
    expect(pages).toBe(6);
    expect(order.indexOf('interactive')).toBe(waitingBehind);
    expect(rig.sim.stats().rateLimited).toBe(0);
  });
});

describe('TicketingClient: 429 handling', () => {
  it.each([
    ['delta-seconds', () => '1'],
    ['fractional seconds', () => '0.3'],
    ['an HTTP-date', () => new Date(Math.ceil((Date.now() + 300) / 1000) * 1000).toUTCString()],
  ])('waits as Retry-After says (%s) and does not burst afterwards', async (_form, value) => {
    rig = await startRig({}, { orgLimit: { limit: 180, windowMs: 2_000 } });
    const client = rig.client;
    // A fresh client sends one request first; it is the one refused.
    const retryAfter = value();
    rig.sim.forceRateLimit(1, retryAfter);
    const results = await runPool(8, 8, () => client.listEvents({ limit: 1 }));
    expect(results).toHaveLength(8);
    const log = rig.sim.stats().log;
    const limitedAt = log.findIndex((entry) => entry.status === 429);
    expect(limitedAt).toBe(0);
    const limited = log[limitedAt];
    const next = log[limitedAt + 1];
    if (!limited || !next) throw new Error('expected a 429 and a request after it');
    const told = /^\d/.test(retryAfter) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - limited.at;
    expect(next.at - limited.at).toBeGreaterThanOrEqual(told - 5);
    // One probe first, the rest only after its answer: never a second 429.
    expect(rig.sim.stats().rateLimited).toBe(1);
    expect(log.slice(limitedAt + 1).every((entry) => entry.status === 200)).toBe(true);
  });

  it('never waits longer than one window (plus jitter) whatever Retry-After claims', async () => {
    rig = await startRig({}, { orgLimit: { limit: 180, windowMs: 600 } });
    rig.sim.forceRateLimit(1, '3600');
    const started = Date.now();
    await rig.client.listEvents({ limit: 1 });
    // One window, its jitter and room for a busy machine: still short of two windows.
    expect(Date.now() - started).toBeLessThan(600 + 30 + 400);
  });
});

describe('TicketingClient: faults', () => {
  it('still returns exactly the simulator events with 20% injected faults', async () => {
    rig = await startRig({ eventCount: 400, faultRate: 0.2 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const ids: string[] = [];
      for await (const event of rig.client.events({ limit: 20, priority: 'background' })) ids.push(event.id);
      expect(ids).toEqual(rig.sim.catalog.events.map((event) => event.id));
      const faults = rig.sim.stats().faults;
      expect(faults['5xx'] + faults.drop + faults.truncate).toBeGreaterThan(0);
      // A check that nothing happens: a late rejection gets 20 ms to show itself (nothing to poll for).
      await sleep(20);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('gives up with a typed error after bounded retries', async () => {
    rig = await startRig({ faultRate: 1, faultKinds: ['5xx'] }, { retry: { maxAttempts: 3, baseDelayMs: 1 } });
    const failure = await rig.client.listEvents().catch((error: unknown) => error);
    expect(isTicketingError(failure) && failure.code).toBe('unavailable');
    expect(rig.sim.stats().requests).toBe(3);
  });

  it('backs off on the clock it is given, so a test moves time instead of waiting for it', async () => {
    const waited: number[] = [];
    const clock = { now: () => Date.now(), sleep: async (ms: number) => void waited.push(ms) };
    // Backoffs of 10 and 20 s (full jitter: a random share of them, here all of it): the test
    // would take half a minute on the wall clock.
    rig = await startRig(
      { faultRate: 1, faultKinds: ['5xx'] },
      { clock, random: () => 1, retry: { maxAttempts: 3, baseDelayMs: 10_000, maxDelayMs: 60_000 } },
    );
    const failure = await rig.client.listEvents().catch((error: unknown) => error);
    expect(isTicketingError(failure) && failure.code).toBe('unavailable');
    expect(waited).toEqual([10_000, 20_000]);
  });

  it('turns 401 and 404 into typed errors carrying the server message, without the key', async () => {
    rig = await startRig({}, { apiKey: 'sk_not_a_real_key_123456' });
    const failure = await rig.client.listEvents().catch((error: unknown) => error);
    expect(isTicketingError(failure) && failure.code).toBe('unauthorized');
    expect(String((failure as Error).message)).toContain('Missing or unknown Service-Api-Key');
    expect(JSON.stringify(failure)).not.toContain('sk_not_a_real_key_123456');
    expect(String((failure as Error).message)).not.toContain('sk_not_a_real_key_123456');
    expect(rig.sim.stats().requests).toBe(1);
  });
});

describe('TicketingClient: reports and promo codes', () => {
  it('rejects bad ids and quantities before any request', async () => {
    rig = await startRig();
    const client = rig.client;
    const event = rig.sim.catalog.events[0]?.id as string;
    const promo = rig.sim.catalog.promos[0]?.id as string;
    const attempts: (() => Promise<unknown>)[] = [
      () => client.updatePromoQuantity(event, promo, -1),
      () => client.updatePromoQuantity(event, promo, 1.5),
      () => client.updatePromoQuantity(event, promo, Number.NaN),
      () => client.updatePromoQuantity(event, promo, 2 ** 60),
      () => client.updatePromoQuantity(promo, promo, 5),
      () => client.updatePromoQuantity(event, event, 5),
      () => client.updatePromoQuantity('evt_../../v1/events', promo, 5),
      () => client.fetchReport('not-an-id'),
      () => client.fetchReport('tkt_0d8f1c2e-7c66-4a44-9a1e-5b8a6f7c9d10'),
    ];
    for (const attempt of attempts) await expect(attempt()).rejects.toMatchObject({ code: 'invalid_input' });
    expect(rig.sim.stats().requests).toBe(0);
  });

  it('sends exactly {"quantity": n} and reports the updated promo', async () => {
    rig = await startRig();
    const promo = rig.sim.catalog.promos[0];
    if (!promo) throw new Error('no promo');
    const before = { ...promo };
    const result = await rig.client.updatePromoQuantity(promo.eventId.slice(4), promo.id, 77);
    expect(result).toMatchObject({ eventId: promo.eventId, promoId: promo.id, quantity: 77 });
    expect(promo).toEqual({ ...before, quantity: 77 });
  });
});
