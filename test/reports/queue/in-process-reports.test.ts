import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { deliverReport } from '../../../src/reports/finish-report.js';
import { inProcessQueue } from '../../../src/reports/queue/build-report-queue.js';
import { inProcessReports } from '../../../src/reports/queue/in-process-reports.js';
import type { ReportStatus } from '../../../src/reports/report-status.js';
import type { ReportAsk, ReportSurface, ReportView } from '../../../src/reports/report-surface.js';
import type { ReportRecord } from '../../../src/store/activity-store.js';
import { NotFoundError } from '../../../src/ticketing/errors.js';
import { systemClock } from '../../../src/time/clock.js';
import { type Rig, startRig } from '../../helpers/ticketing.js';

/**
 * The report use case without Bolt: the real client's in-process queue against the simulator on
 * loopback, a surface that writes down every status it is asked to show, an activity list.
 */
interface Shown {
  /** Every status, the opening one first. */
  statuses: ReportStatus[];
  surface: ReportSurface<string>;
}

function recordingSurface(where: string): Shown {
  const statuses: ReportStatus[] = [];
  const view: ReportView<string> = {
    where,
    show: async (status) => {
      statuses.push(status);
    },
  };
  return {
    statuses,
    surface: {
      open: async (first) => {
        statuses.push(first);
        return view;
      },
      exclusive: (_key, work) => work(),
    },
  };
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

function flowOn(r: Rig, stopping = new AbortController().signal) {
  const records: ReportRecord[] = [];
  const flow = inProcessReports<string>({
    queue: inProcessQueue((eventId, options) => r.client.fetchReport(eventId, options), r.limits),
    activity: { recordReport: async (record) => void records.push(record) },
    clock: systemClock,
    logger: silentLogger,
    stopping,
    progressIntervalMs: 0,
  });
  return { flow, records };
}

const askFor = (r: Rig, index: number, userId = 'U0ASKER'): ReportAsk => {
  const event = r.sim.catalog.events[index];
  if (!event) throw new Error(`no event ${index}`);
  return { eventId: event.id, label: event.name, userId };
};

const states = (shown: Shown) => shown.statuses.map((status) => status.state);

describe('asking for a report in one process', () => {
  it('opens one message, ends it with the report, and records it for App Home', async () => {
    rig = await startRig({ eventCount: 10 });
    const { flow, records } = flowOn(rig);
    const ask = askFor(rig, 0);
    const shown = recordingSurface('C1');
    await flow.follow(ask, shown.surface);
    const last = shown.statuses.at(-1);
    expect(last?.state).toBe('report');
    expect(last?.state === 'report' && last.report.eventId).toBe(ask.eventId);
    expect(
      states(shown)
        .slice(0, -1)
        .every((state) => state === 'queued' || state === 'fetching'),
    ).toBe(true);
    expect(records).toEqual([
      expect.objectContaining({ eventId: ask.eventId, eventName: ask.label, userId: 'U0ASKER' }),
    ]);
    expect(rig.sim.stats().admittedReports).toBe(1);
  });

  it('shows a report past the limit queued with its place, then the report once a slot frees', async () => {
    const reportLimit = { limit: 3, windowMs: 200 };
    rig = await startRig({ eventCount: 10, reportLimit });
    const { flow, records } = flowOn(rig);
    const shown = [0, 1, 2, 3].map((i) => recordingSurface(`C${i}`));
    await Promise.all(shown.map((s, i) => flow.follow(askFor(rig as Rig, i), s.surface)));
    const fourth = shown[3] as Shown;
    expect(fourth.statuses[0]).toMatchObject({ state: 'queued', position: 1 });
    expect((fourth.statuses[0] as { estimatedWaitMs: number }).estimatedWaitMs).toBeGreaterThan(0);
    for (const s of shown) expect(s.statuses.at(-1)?.state).toBe('report');
    expect(records).toHaveLength(4);
    expect(rig.sim.stats().rateLimited).toBe(0);
  });

  it('ends a report the service cannot give with the error, and records nothing', async () => {
    rig = await startRig({ eventCount: 10 });
    const { flow, records } = flowOn(rig);
    const shown = recordingSurface('C1');
    await flow.follow(
      { eventId: 'evt_00000000-0000-4000-8000-000000000000', label: 'Gone', userId: 'U0ASKER' },
      shown.surface,
    );
    const last = shown.statuses.at(-1);
    expect(last?.state).toBe('failed');
    expect(last?.state === 'failed' && last.error).toBeInstanceOf(NotFoundError);
    expect(records).toEqual([]);
  });

  it('at shutdown gives up a report still queued and says so, while the one being fetched finishes', async () => {
    const reportLimit = { limit: 1, windowMs: 60_000 };
    rig = await startRig({ eventCount: 10, reportLimit });
    const stopping = new AbortController();
    const { flow, records } = flowOn(rig, stopping.signal);
    const first = recordingSurface('C1');
    const second = recordingSurface('C2');
    const firstDone = flow.follow(askFor(rig, 0), first.surface);
    const secondDone = flow.follow(askFor(rig, 1), second.surface);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(second.statuses[0]?.state).toBe('queued');
    stopping.abort(new Error('shutting down'));
    await Promise.all([firstDone, secondDone]);
    expect(first.statuses.at(-1)?.state).toBe('report');
    expect(states(second)).toEqual(['queued', 'abandoned']);
    expect(records.map((record) => record.eventId)).toEqual([askFor(rig, 0).eventId]);
  });
});

describe('delivering a report fetched on another replica', () => {
  it('resumes the message where it was opened and finishes it holding its lock', async () => {
    const statuses: ReportStatus[] = [];
    const locks: string[] = [];
    const records: ReportRecord[] = [];
    const report = { eventId: 'evt_1', eventName: 'Gala', ticketsSold: 3 };
    await deliverReport(
      {
        activity: { recordReport: async (record) => void records.push(record) },
        clock: { now: () => Date.UTC(2026, 10, 23) },
        logger: silentLogger,
      },
      async (key, work) => {
        locks.push(key);
        return work();
      },
      {
        where: 'C1/1.0',
        show: async (status) => {
          expect(locks).toEqual(['m1']);
          statuses.push(status);
        },
      },
      { eventId: 'evt_1', label: 'Gala', userId: 'U0ASKER', where: 'C1/1.0', messageKey: 'm1' },
      { kind: 'report', report },
    );
    expect(statuses).toEqual([{ state: 'report', report }]);
    expect(records).toEqual([
      { at: '2026-11-23T00:00:00.000Z', userId: 'U0ASKER', eventId: 'evt_1', eventName: 'Gala' },
    ]);
  });
});
