import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { type Simulator, startSimulator } from '../src/simulator/server.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ anchorMs: Date.UTC(2026, 10, 22), eventCount: 150 });
});
afterAll(() => sim.close());

async function cli(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    args,
    { TICKETING_API_URL: sim.url, TICKETING_API_KEY: sim.apiKeys[0] as string, ...env },
    { out: (text) => out.push(text), err: (text) => err.push(text) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('eventops CLI', () => {
  it('check verifies the key and prints the budget from the headers', async () => {
    const { code, out } = await cli(['check']);
    expect(code).toBe(0);
    expect(out).toMatch(/API key accepted\. Budget: \d+\/180 requests left, window resets in \d+ s\./);
  });

  it('events lists the first page; --all --json lists every event', async () => {
    const first = await cli(['events']);
    expect(first.code).toBe(0);
    expect(first.out).toContain('10 events');
    const all = await cli(['events', '--all', '--json']);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.out) as unknown[]).length).toBe(150);
  });

  it('report prints the report', async () => {
    const id = sim.catalog.events[0]?.id as string;
    const { code, out } = await cli(['report', id.slice(4)]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ eventId: id });
  });

  it('promo sets the quantity', async () => {
    const promo = sim.catalog.promos[1];
    const { code, out } = await cli(['promo', promo?.eventId as string, promo?.id as string, '12']);
    expect(code).toBe(0);
    expect(out).toContain('now allows 12 redemptions');
    expect(promo?.quantity).toBe(12);
  });

  it.each([
    [[], /No command given/],
    [['launch'], /Unknown command "launch"/],
    [['report'], /report takes 1 argument/],
    [['promo', 'evt_x', 'promo_y', '1.5'], /quantity must be a whole number from 0 to 1,000,000, not a fraction/],
    [['promo', 'evt_x', 'promo_y', '--', '-3'], /quantity cannot be negative/],
    [['promo', 'evt_x', 'promo_y', '1,000'], /without separators/],
    [['promo', 'evt_x', 'promo_y', '1000001'], /too large/],
    [['promo', 'evt_x', 'promo_y', '-3'], /Unknown option '-3'/],
    [['promo', 'nope', 'promo_y', '3'], /not a valid event id/],
    [['events', '--limit', '500'], /--limit takes a whole number/],
    [['events', '--bogus'], /Unknown option/],
  ])('exits 2 with a one-line reason on bad usage %j', async (args, reason) => {
    const before = sim.stats().requests;
    const { code, err } = await cli(args);
    expect(code).toBe(2);
    expect(err).toMatch(reason);
    expect(sim.stats().requests).toBe(before);
  });

  it('exits 2 when the API is not configured', async () => {
    const { code, err } = await cli(['check'], { TICKETING_API_URL: '', TICKETING_API_KEY: '' });
    expect(code).toBe(2);
    expect(err).toContain('Set TICKETING_API_URL and TICKETING_API_KEY');
  });

  it('exits 1 on an API error, without printing the key', async () => {
    const { code, err } = await cli(['check'], { TICKETING_API_KEY: 'sk_rejected_key_000' });
    expect(code).toBe(1);
    expect(err).toContain('Error (unauthorized)');
    expect(err).not.toContain('sk_rejected_key_000');
  });
});
