import { describe, expect, it } from 'vitest';
import { InProcessReportQueue } from '../../../src/reports/queue/in-process-report-queue.js';
import type { EventReport } from '../../../src/ticketing/schemas.js';
import { systemClock } from '../../../src/time/clock.js';
import { ttlCache } from '../../../src/ttl-cache.js';

/** Asks for one event's report twice in a row and counts the calls the service would see. */
async function callsForTwoAsks(cacheTtlMs: number | undefined): Promise<number> {
  let calls = 0;
  const queue = new InProcessReportQueue({
    limit: 10,
    windowMs: 1_000,
    ...(cacheTtlMs === undefined ? {} : { cacheTtlMs }),
    fetchReport: async (eventId) => {
      calls += 1;
      return { eventId } as unknown as EventReport;
    },
  });
  await queue.request('evt_1').result;
  await queue.request('evt_1').result;
  return calls;
}

describe('the report cache TTL', () => {
  // lru-cache reads a TTL of 0 as "never expires": TICKETING_REPORT_CACHE_TTL=0 kept reports forever.
  it('keeps no report at 0, so every ask is fetched', async () => {
    expect(await callsForTwoAsks(0)).toBe(2);
  });

  it('serves the second ask from the cache by default', async () => {
    expect(await callsForTwoAsks(undefined)).toBe(1);
  });

  it('refuses to build a cache with no positive TTL', () => {
    expect(() => ttlCache({ max: 1, ttlMs: 0, clock: systemClock })).toThrow(/TTL above zero/);
  });
});
