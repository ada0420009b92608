import type { SalesHistory } from '../history/sales-history.js';
import { salesPointOf } from '../history/sales-point.js';
import { BRISK_EVENTS } from '../simulator/moving-figures.js';
import type { Simulator } from '../simulator/server.js';

/** Most finished events seeded: enough for the forecast to learn from and the first events listed to compare with (each needs 3 similar ones). */
const FINISHED_EVENTS = 20;

/**
 * Seeds the bot's sales history from the simulator's past, so a forecast and a sales digest show
 * at once in the sandbox instead of after hours of report reads: the events listed first (on
 * sale, by start, as `/events list` and the pickers show them) and the events already over. Each
 * past report is a point as a report read makes it (`salesPointOf`), an event's points written at
 * once (`SalesHistory.recordAll`).
 * An event that already has a history (the sandbox's store kept from an earlier start) is left as
 * it is. Returns how many events were seeded.
 */
export async function seedSalesHistory(options: {
  simulator: Simulator;
  history: SalesHistory;
  now: number;
  /** Shutdown: the seeding stops between two events, so a stop never waits for the rest. */
  stopping?: AbortSignal;
}): Promise<number> {
  const { simulator, history, now, stopping } = options;
  const published = simulator.catalog.events
    .filter((event) => event.status === 'published')
    .map((event) => ({ event, profile: simulator.salesProfile(event.id) }));
  const listedFirst = published
    .filter(({ profile }) => profile.endMs > now)
    .sort((a, b) => a.event.startsAtMs - b.event.startsAtMs || a.event.id.localeCompare(b.event.id))
    .slice(0, BRISK_EVENTS);
  const finished = published
    .filter(({ profile }) => profile.endMs <= now)
    .sort((a, b) => b.profile.endMs - a.profile.endMs)
    .slice(0, FINISHED_EVENTS);
  let seeded = 0;
  for (const { event, profile } of [...finished, ...listedFirst]) {
    if (stopping?.aborted) break;
    if ((await history.read(event.id)).points.length > 0) continue;
    const dates = { startsAtMs: profile.startMs, endsAtMs: profile.endMs };
    const points = simulator.pastReports(event.id).flatMap(({ at, report }) => salesPointOf(report, at) ?? []);
    // One write an event: its past reports' points together.
    await history.recordAll(event.id, points, dates);
    seeded += 1;
  }
  return seeded;
}
