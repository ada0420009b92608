import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { ReadFor } from '../../src/reports/report-reads.js';
import type { ReportSurface } from '../../src/reports/report-surface.js';
import { buildReports, type Reports } from '../../src/reports/reports.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { RateLimitObservation } from '../../src/ticketing/rate-limit-headers.js';
import { systemClock } from '../../src/time/clock.js';
import { type Rig, startRig } from '../helpers/ticketing.js';

/*
 * What follows every report read is one subscription: the real client against the simulator on
 * loopback, the real in-process queue, listeners registered as the history, promo codes and
 * watches register theirs.
 */

let rig: Rig | undefined;
let reports: Reports<string> | undefined;
let store: StoreHandle | undefined;
afterEach(async () => {
  await reports?.close();
  await store?.close();
  await rig?.close();
  reports = undefined;
  store = undefined;
  rig = undefined;
});

async function reportsOn(r: Rig): Promise<Reports<string>> {
  store = await openStore('sqlite://:memory:');
  return buildReports<string>({
    ticketing: r.client,
    limits: r.limits,
    store: store.keyValue,
    activity: { recordReport: async () => {} },
    clock: systemClock,
    logger: silentLogger,
    stopping: new AbortController().signal,
    progressIntervalMs: 0,
  });
}

/** A surface that keeps nothing: these tests look at what the listeners hear. */
const nowhere: ReportSurface<string> = {
  open: async () => ({ where: 'nowhere', show: async () => {} }),
  exclusive: (_key, work) => work(),
};

describe('onReportRead', () => {
  it("hears a person's report as read for a person and a watch's as background, each once, with the event's id", async () => {
    rig = await startRig({ eventCount: 5 });
    reports = await reportsOn(rig);
    const [a, b] = rig.sim.catalog.events;
    if (!a || !b) throw new Error('no events');
    const heard: [string, unknown, ReadFor][] = [];
    reports.onReportRead((eventId, report, readFor) => heard.push([eventId, report.eventId, readFor]));

    // Asked without its prefix: the listener hears the id as the API names it.
    await reports.follow({ eventId: a.id.slice(4), label: 'A', userId: 'U0ASKER' }, nowhere);
    expect(await reports.spare(b.id)).toMatchObject({ eventId: b.id });
    expect(heard).toEqual([
      [a.id, a.id, 'person'],
      [b.id, b.id, 'background'],
    ]);

    // A report served from the queue's cache was not read from the service: nobody hears it again.
    await reports.follow({ eventId: a.id, label: 'A', userId: 'U0OTHER' }, nowhere);
    expect(heard).toHaveLength(2);
  });

  it('gives the report to its asker though a listener throws, and stops calling one removed', async () => {
    rig = await startRig({ eventCount: 5 });
    reports = await reportsOn(rig);
    const [a, b] = rig.sim.catalog.events;
    if (!a || !b) throw new Error('no events');
    const heard: string[] = [];
    reports.onReportRead(() => {
      throw new Error('a broken listener');
    });
    const stop = reports.onReportRead((eventId) => heard.push(eventId));

    expect(await reports.fetchFor(a.id, 'U0ASKER')).toMatchObject({ eventId: a.id });
    stop();
    expect(await reports.fetchFor(b.id, 'U0ASKER')).toMatchObject({ eventId: b.id });
    expect(heard).toEqual([a.id]);
  });
});

describe("the client's fetchReport", () => {
  it("hands the report endpoint's own headers to the caller that made the call, not the organization's", async () => {
    rig = await startRig({ eventCount: 5, reportLimit: { limit: 3, windowMs: 60_000 } });
    const [a] = rig.sim.catalog.events;
    if (!a) throw new Error('no events');
    const seen: RateLimitObservation[] = [];
    await rig.client.fetchReport(a.id, { onHeaders: (observation) => seen.push(observation) });
    await rig.client.listEvents({ limit: 1 });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ limit: 3, remaining: 2 });
  });
});
