import { afterEach, describe, expect, it } from 'vitest';
import { inProcessQueue } from '../../../src/reports/queue/build-report-queue.js';
import { parseId } from '../../../src/ticketing/ids.js';
import { type Rig, startRig } from '../../helpers/ticketing.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The queue one process keeps over its client, with the client's limits. */
const queueOn = (r: Rig) => inProcessQueue((eventId, options) => r.client.fetchReport(eventId, options), r.limits);

describe('the in-process report queue over the client', () => {
  it('admits 7 distinct reports at most 3 in any window and delivers them in order', async () => {
    const reportLimit = { limit: 3, windowMs: 300 };
    rig = await startRig({ reportLimit }, { reportLimit });
    const events = rig.sim.catalog.events.slice(0, 7);
    const delivered: string[] = [];
    const queue = queueOn(rig);
    await Promise.all(
      events.map((event) => queue.request(event.id).result.then((report) => delivered.push(String(report.eventId)))),
    );
    expect(delivered).toEqual(events.map((event) => event.id));
    const stats = rig.sim.stats();
    expect(stats.rateLimited).toBe(0);
    expect(stats.mostInAnySpan.report).toBeLessThanOrEqual(3);
  });

  it('shares one API call among 5 concurrent requests for the same report', async () => {
    rig = await startRig();
    const id = rig.sim.catalog.events[0]?.id as string;
    const queue = queueOn(rig);
    const reports = await Promise.all(
      [id, id.slice(4), id, id, id.slice(4)].map((each) => queue.request(parseId('event', each)).result),
    );
    expect(new Set(reports.map((report) => report.eventId))).toEqual(new Set([id]));
    expect(rig.sim.stats().log.filter((entry) => entry.path.endsWith('/report'))).toHaveLength(1);
    // A finished report is served from the cache for a while.
    await queue.request(id).result;
    expect(rig.sim.stats().requests).toBe(1);
  });

  it('tells a waiting caller its position and estimated wait, and lets it cancel', async () => {
    const reportLimit = { limit: 1, windowMs: 200 };
    rig = await startRig({ reportLimit }, { reportLimit });
    const [a, b, c] = rig.sim.catalog.events;
    const queue = queueOn(rig);
    const first = queue.request(a?.id as string);
    const second = queue.request(b?.id as string);
    const third = queue.request(c?.id as string);
    expect(first.progress().state).toBe('fetching');
    expect(second.progress()).toMatchObject({ state: 'queued', position: 1 });
    expect(third.progress()).toMatchObject({ state: 'queued', position: 2 });
    expect(third.progress().estimatedWaitMs).toBeGreaterThan(second.progress().estimatedWaitMs);
    second.cancel();
    await expect(second.result).rejects.toMatchObject({ code: 'cancelled' });
    expect(third.progress()).toMatchObject({ state: 'queued', position: 1 });
    await Promise.all([first.result, third.result]);
    const paths = rig.sim.stats().log.map((entry) => entry.path);
    expect(paths.some((path) => path.includes(b?.id as string))).toBe(false);
  });
});
