import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';

const START = Date.UTC(2026, 10, 23, 11, 0);
const MINUTE = 60_000;

const open: Simulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sim) => sim.close()));
});

async function soldOf(sim: Simulator, id: string): Promise<{ sold: number; capacity: number }> {
  const response = await fetch(`${sim.url}/v1/events/${id}/report`, {
    headers: { 'Service-Api-Key': sim.apiKeys[0] as string },
  });
  const report = (await response.json()) as { ticketsSold: number; capacity: number };
  return { sold: report.ticketsSold, capacity: report.capacity };
}

// The sandbox's demo: the events a person sees first (`/events list`, the pickers' first options)
// sell while they look, so a watch set on one of them sees a crossing in a few minutes.
describe('the simulator behind the sandbox', () => {
  it('sells the events listed first visibly within minutes, crossing 90% sold within a quarter hour', async () => {
    let now = START;
    const sim = await startSimulator({
      clock: { now: () => now },
      anchorMs: START,
      motion: 'moving',
      orgLimit: { limit: 1_000_000, windowMs: 60_000 },
      reportLimit: { limit: 1_000_000, windowMs: 60_000 },
    });
    open.push(sim);
    const listedFirst = sim.catalog.events
      .filter((event) => event.status === 'published' && sim.salesProfile(event.id).endMs > START)
      .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id))
      .slice(0, 3);
    expect(listedFirst).toHaveLength(3);
    const before = await Promise.all(listedFirst.map((event) => soldOf(sim, event.id)));
    for (const { sold, capacity } of before) expect(sold).toBeLessThan(capacity * 0.9);
    now += 3 * MINUTE;
    const soon = await Promise.all(listedFirst.map((event) => soldOf(sim, event.id)));
    soon.forEach(({ sold }, i) => {
      expect(sold).toBeGreaterThan(before[i]?.sold ?? 0);
    });
    now += 12 * MINUTE;
    const later = await Promise.all(listedFirst.map((event) => soldOf(sim, event.id)));
    for (const { sold, capacity } of later) expect(sold).toBeGreaterThanOrEqual(capacity * 0.9);
  });

  it('leaves a still simulator as it was: the same figures for those events, hour after hour', async () => {
    let now = START;
    const sim = await startSimulator({ clock: { now: () => now }, anchorMs: START });
    open.push(sim);
    const first = sim.catalog.events.find((event) => event.status === 'published' && event.startsAtMs > START);
    const before = await soldOf(sim, first?.id as string);
    now += 60 * MINUTE;
    expect(await soldOf(sim, first?.id as string)).toEqual(before);
  });
});
