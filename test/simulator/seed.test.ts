import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { searchEvents } from '../../src/catalog/event-search.js';
import { HOSTILE_NAMES, seedCatalog } from '../../src/simulator/seed.js';
import { eventSchema } from '../../src/ticketing/schemas.js';

describe('the demo catalog', () => {
  const anchorMs = Date.parse('2026-11-27T22:00:00Z');

  it('names every event differently, so a name typed in full finds one event', () => {
    for (const seed of [42, 7]) {
      const names = seedCatalog({ seed, anchorMs }).events.map((event) => event.name);
      const repeated = names.filter((name, index) => names.indexOf(name) !== index);
      expect(repeated).toEqual([]);
    }
  });

  it('keeps every hostile sample name, and the same ids and times as before', () => {
    const { events } = seedCatalog({ anchorMs });
    for (const name of HOSTILE_NAMES) expect(events.some((event) => event.name.startsWith(name))).toBe(true);
    // Only names changed: the ids, times, statuses, capacities and promo codes are those seeded before.
    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify([
          events.map((e) => [e.id, e.startsAtMs, e.endDate, e.status, e.capacity]),
          seedCatalog({ anchorMs }).promos,
        ]),
      )
      .digest('hex');
    expect(fingerprint).toBe('eeba585537416552430a2823aba6693a8fcaefb7e68bb666a38bf96ee6781030');
  });

  it('finds each event by its full name alone, with no "which one?"', () => {
    const events = seedCatalog({ anchorMs }).events.map((event) => eventSchema.parse(event));
    for (const event of events) {
      const [first, second] = searchEvents(events, event.name ?? '');
      expect(first?.event.name).toBe(event.name);
      if (second) expect(first?.score ?? 0).toBeGreaterThan(second.score + 1);
    }
  });
});
