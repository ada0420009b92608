import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';

interface Envelope {
  data: { id: string; startDate: string; endDate: string; timezone: string; name: string; status: string }[];
  pagination: { nextCursor: string | null; hasMore: boolean };
}

/** `key: null` sends no key at all. */
async function get(sim: Simulator, path: string, key: string | null = sim.apiKeys[0] as string) {
  const response = await fetch(`${sim.url}${path}`, { headers: key === null ? {} : { 'Service-Api-Key': key } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

async function post(sim: Simulator, path: string, body: unknown, key = sim.apiKeys[0] as string) {
  const response = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'Service-Api-Key': key, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

describe('simulator: events and pagination', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ anchorMs: Date.UTC(2026, 10, 22), orgLimit: { limit: 1000, windowMs: 60_000 } });
  });
  afterAll(() => sim.close());

  it('pages through every event with the cursor until hasMore is false', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `&nextCursor=${encodeURIComponent(cursor)}` : '';
      const { status, body } = await get(sim, `/v1/events?limit=37${query}`);
      expect(status).toBe(200);
      const page = body as Envelope;
      ids.push(...page.data.map((event) => event.id));
      cursor = page.pagination.hasMore ? page.pagination.nextCursor : null;
      if (!page.pagination.hasMore) expect(page.pagination.nextCursor).toBeNull();
      pages += 1;
    } while (cursor);
    expect(ids).toHaveLength(sim.catalog.events.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(sim.catalog.events.length / 37));
  });

  it('defaults to 10 events a page and accepts 100', async () => {
    expect(((await get(sim, '/v1/events')).body as Envelope).data).toHaveLength(10);
    expect(((await get(sim, '/v1/events?limit=100')).body as Envelope).data).toHaveLength(100);
  });

  it.each(['0', '101', '2.5', 'ten', '-1', ''])('rejects limit=%s with 400', async (limit) => {
    const { status, body } = await get(sim, `/v1/events?limit=${limit}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', statusCode: 400 });
  });

  it('issues cursors that are not guessable offsets and refuses forged ones', async () => {
    const first = (await get(sim, '/v1/events?limit=2')).body as Envelope;
    const cursor = first.pagination.nextCursor as string;
    expect(cursor).not.toMatch(/^\d+$/);
    for (const forged of ['2', 'eyJ2IjoxLCJhZnRlciI6ImV2dF8xIn0', `${cursor}x`]) {
      const { status } = await get(sim, `/v1/events?nextCursor=${encodeURIComponent(forged)}`);
      expect(status).toBe(400);
    }
  });

  it('seeds at least 150 events over at least 10 zones, with the awkward cases', () => {
    const events = sim.catalog.events;
    expect(events.length).toBeGreaterThanOrEqual(150);
    const zones = new Set(events.map((event) => event.timezone));
    expect(zones.size).toBeGreaterThanOrEqual(10);
    expect(zones).toContain('Asia/Kathmandu');
    expect(zones).toContain('America/St_Johns');
    expect(events.some((event) => /^\d{4}-\d{2}-\d{2}$/.test(event.startDate))).toBe(true);
    expect(events.some((event) => event.status === 'cancelled')).toBe(true);
    expect(events.some((event) => event.status === 'draft')).toBe(true);
    expect(events.some((event) => event.name.includes('<!channel>'))).toBe(true);
    expect(events.some((event) => event.name.startsWith('Clock Change Party'))).toBe(true);
    // Instants carry the zone's own offset, e.g. +05:45 in Kathmandu.
    const kathmandu = events.find((e) => e.timezone === 'Asia/Kathmandu' && e.startDate.includes('T'));
    expect(kathmandu?.startDate).toMatch(/\+05:45$/);
    for (const event of events) expect(sim.catalog.promos.some((promo) => promo.eventId === event.id)).toBe(true);
  });

  it('produces the same catalog from the same seed and anchor', async () => {
    const again = await startSimulator({ anchorMs: Date.UTC(2026, 10, 22) });
    try {
      expect(again.catalog.events.map((e) => e.id)).toEqual(sim.catalog.events.map((e) => e.id));
    } finally {
      await again.close();
    }
  });
});

describe('simulator: ids, methods, auth and updates', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ anchorMs: Date.UTC(2026, 10, 22), reportLimit: { limit: 100, windowMs: 60_000 } });
  });
  afterAll(() => sim.close());

  it('accepts an event id with or without its prefix, and not with another prefix', async () => {
    const id = sim.catalog.events[3]?.id as string;
    const bare = id.slice('evt_'.length);
    expect((await get(sim, `/v1/events/${id}/report`)).status).toBe(200);
    expect((await get(sim, `/v1/events/${bare}/report`)).status).toBe(200);
    const wrong = await get(sim, `/v1/events/tkt_${bare}/report`);
    expect(wrong.status).toBe(404);
    expect(wrong.body).toMatchObject({ error: 'not_found', statusCode: 404 });
  });

  it('answers 405 to the wrong method and 404 to unknown paths', async () => {
    const id = sim.catalog.events[0]?.id as string;
    const wrongMethod = await post(sim, '/v1/events', {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    const promo = sim.catalog.promos.find((p) => p.eventId === id);
    const getUpdate = await get(sim, `/v1/events/${id}/promos/${promo?.id}/update`);
    expect(getUpdate.status).toBe(405);
    expect((await get(sim, '/v1/tickets')).status).toBe(404);
  });

  it('answers 401 without a key or with an unknown key, with rate-limit headers', async () => {
    for (const key of [null, 'sk_wrong']) {
      const { status, headers, body } = await get(sim, '/v1/events', key);
      expect(status).toBe(401);
      expect(body).toMatchObject({ error: 'unauthorized', statusCode: 401 });
      expect(headers.get('x-ratelimit-limit')).toBe('180');
    }
  });

  it('updates only the fields passed, validating all of them before changing any', async () => {
    const promo = sim.catalog.promos[5];
    if (!promo) throw new Error('no promo');
    const before = { ...promo };
    const path = `/v1/events/${promo.eventId}/promos/${promo.id.slice('promo_'.length)}/update`;
    const updated = await post(sim, path, { quantity: before.quantity + 7 });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...before, quantity: before.quantity + 7 });

    const rejected = await post(sim, path, { quantity: 1, discountPercent: 500 });
    expect(rejected.status).toBe(400);
    expect(promo.quantity).toBe(before.quantity + 7);

    for (const bad of ['{"quantity":', { quantity: -1 }, { quantity: 1.5 }, { quantity: '3' }, [1]]) {
      expect((await post(sim, path, bad)).status).toBe(400);
    }
    expect(promo).toEqual({ ...before, quantity: before.quantity + 7 });
  });

  it('does not find a promo through another event', async () => {
    const promo = sim.catalog.promos.find((p) => p.eventId !== sim.catalog.events[0]?.id);
    const { status } = await post(sim, `/v1/events/${sim.catalog.events[0]?.id}/promos/${promo?.id}/update`, {
      quantity: 1,
    });
    expect(status).toBe(404);
  });
});

describe('simulator: limits', () => {
  it('shares one budget between two keys of the organization, with headers on every response', async () => {
    const sim = await startSimulator({ orgLimit: { limit: 5, windowMs: 60_000 } });
    try {
      const [a, b] = sim.apiKeys as [string, string];
      const remaining: string[] = [];
      for (const key of [a, b, a, b, a]) {
        const { status, headers } = await get(sim, '/v1/events?limit=1', key);
        expect(status).toBe(200);
        expect(headers.get('x-ratelimit-limit')).toBe('5');
        expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
        expect(Number(headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60_000);
        remaining.push(headers.get('x-ratelimit-remaining') as string);
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);
      const limited = await get(sim, '/v1/events?limit=1', b);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), statusCode: 429 });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(sim.stats().rateLimited).toBe(1);
      expect(sim.stats().mostInAWindow.organization).toBe(5);
    } finally {
      await sim.close();
    }
  });

  it('gives reports their own limit and headers, counted against the organization too', async () => {
    const sim = await startSimulator({ reportLimit: { limit: 3, windowMs: 60_000 } });
    try {
      const id = sim.catalog.events[0]?.id as string;
      for (let i = 0; i < 3; i += 1) {
        const { status, headers, body } = await get(sim, `/v1/events/${id}/report`);
        expect(status).toBe(200);
        expect(headers.get('x-ratelimit-limit')).toBe('3');
        expect(headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
        expect(body).toMatchObject({ eventId: id, ticketsSold: expect.any(Number) });
      }
      const limited = await get(sim, `/v1/events/${id}/report`);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
      const list = await get(sim, '/v1/events?limit=1');
      expect(list.headers.get('x-ratelimit-limit')).toBe('180');
      // Three reports and the refused fourth were all counted by the organization's window.
      expect(list.headers.get('x-ratelimit-remaining')).toBe(String(180 - 5));
    } finally {
      await sim.close();
    }
  });

  it('writes Retry-After in the configured form', async () => {
    const sim = await startSimulator({ orgLimit: { limit: 1, windowMs: 2_000 }, retryAfterFormat: 'http-date' });
    try {
      await get(sim, '/v1/events?limit=1');
      const limited = await get(sim, '/v1/events?limit=1');
      expect(limited.status).toBe(429);
      expect(Number.isNaN(Date.parse(limited.headers.get('retry-after') as string))).toBe(false);
      sim.knobs.retryAfterFormat = 'fractional';
      expect((await get(sim, '/v1/events?limit=1')).headers.get('retry-after')).toMatch(/^\d+\.\d{3}$/);
    } finally {
      await sim.close();
    }
  });

  it('injects faults on request and counts them', async () => {
    const sim = await startSimulator({ faultRate: 1, faultKinds: ['5xx'] });
    try {
      expect((await get(sim, '/v1/events')).status).toBe(503);
      sim.knobs.faultKinds = ['drop'];
      await expect(
        fetch(`${sim.url}/v1/events`, { headers: { 'Service-Api-Key': sim.apiKeys[0] as string } }),
      ).rejects.toThrow();
      sim.knobs.faultKinds = ['truncate'];
      const response = await fetch(`${sim.url}/v1/events`, {
        headers: { 'Service-Api-Key': sim.apiKeys[0] as string },
      });
      expect(response.status).toBe(200);
      await expect(response.json()).rejects.toThrow();
      expect(sim.stats().faults).toEqual({ '5xx': 1, drop: 1, 'drop-after': 0, truncate: 1 });
    } finally {
      await sim.close();
    }
  });
});
