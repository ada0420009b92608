/**
 * `npm run bench` (issues 35 and 45): how far off the sales forecasts are, on synthetic organizations.
 *
 * Families of booking curves, each made by its own generator:
 * - **issue 35**, the family `forecast()` was first tuned on: five shapes (steady, late, late surge,
 *   early, S-curve), each organization with one shape, its own size and selling period; each event's
 *   capacity, selling period, demand and curve vary around the organization's, with noise on every
 *   6-hour read and a slow drift. Eight finished events per organization and five to forecast; an
 *   event's history starts at its on-sale or up to 30% into its selling period (then its first point
 *   already shows tickets sold).
 * - Issue 45's families, which it was not tuned on before: **beta** (cumulative Beta-shaped demand),
 *   **logistic** (a logistic rise anywhere in the sale, gentle or steep), **spike** (a burst of demand
 *   at the on-sale or at an announcement part-way in, whose day moves from event to event, over a
 *   slower base) and **mixed** (organizations whose events follow two or three of the other shapes).
 *   Sales arrive as Poisson counts around the curve (with a slow drift); 3 to 12 finished events an
 *   organization; selling periods of 5 to 150 days read every 1 to 24 hours; histories that start at
 *   the on-sale or up to 45% into the sale. The held-out beta family is drawn as issue 45 described
 *   the family the forecaster did worse on: a quarter of its organizations a late surge, histories
 *   that start up to 60% in, and events whose capacity (x 0.5-2) and selling period (x 0.6-1.6)
 *   differ more from one another than the other families' do. The tuning families have that trait
 *   too, in 30% of their organizations (drawn from a stream of their own, `UNLIKE_SHARE`), so that
 *   the forecaster can be tuned for it without looking at the held-out family.
 *
 * One family is kept out of ALL tuning (`HELD_OUT`, chosen before any tuning by a seeded draw, and
 * committed before it): its figures are printed apart from the rest's, and nothing in
 * `src/forecast/` was tuned on them. Tune with `BENCH_FAMILIES` leaving it out. (The fallback for
 * unlike finished events was changed knowing the failure mode beta's earlier run showed, tuned on
 * the other families only: docs/forecasts.md.)
 *
 * Forecasts at 25%, 50% and 75% of the selling period (a point the history does not yet cover by a
 * day is skipped). Per method: the mean absolute error of the projected sold at the start as a
 * share of capacity, the mean absolute error of the sell-out time in days over the events that sell
 * out after the forecast (no projected sell-out counts as the start), and how often the stated range
 * holds the outcome; the forecaster also with only two finished events (its pooled prior); then the
 * track record's cost. Deterministic (seeded); `BENCH_SHORT=1` for a short run, `BENCH_SEEDS=6,7,8`
 * for seeds nothing was tuned on, `BENCH_FAMILIES=issue 35,spike` for some families only. Misses are
 * printed, not exit codes.
 *
 * This file draws the organizations and runs the methods over them; its parts: the settings
 * (`forecast-settings.ts`), the random stream, families and curves (`forecast-curves.ts`), the
 * synthetic organizations and events (`forecast-events.ts`), the methods (`forecast-methods.ts`),
 * the tallies (`forecast-tallies.ts`) and the tables and targets printed (`forecast-tables.ts`).
 */

import type { FinishedEvent } from '../src/forecast/forecast.js';
import { trackRecordOf } from '../src/forecast/track-record.js';
import { FAMILIES, rng, SHAPES, type Shape } from './forecast-curves.js';
import { eventOf, newOrgOf, orgOf } from './forecast-events.js';
import {
  DAY,
  FINISHED,
  ORGS_PER_FAMILY,
  ORGS_PER_SHAPE,
  out,
  RUN_FAMILIES,
  SEEDS,
  T0,
  TO_FORECAST,
  TO_FORECAST_NEW,
} from './forecast-settings.js';
import { printFamilies, printIssue35, printSummary } from './forecast-tables.js';
import { forecastOrg, newTallies } from './forecast-tallies.js';

const started = performance.now();
const tallies = newTallies();

for (const seed of SEEDS) {
  if (RUN_FAMILIES.includes('issue 35')) {
    // The issue 35 family draws as it always has, so its figures stay comparable with before.
    const r = rng(seed * 7919);
    const trait = rng(seed * 7919 + 424_243);
    for (const shape of SHAPES) {
      for (let o = 0; o < ORGS_PER_SHAPE; o += 1) {
        const org = orgOf(shape, r, trait);
        const finished: FinishedEvent[] = Array.from({ length: FINISHED }, (_, i) => {
          const e = eventOf(org, T0 - (FINISHED - i) * 130 * DAY, r);
          return { startsAtMs: e.startsAtMs, capacity: e.capacity, points: e.points };
        });
        const events = Array.from({ length: TO_FORECAST }, () => eventOf(org, T0 + 200 * DAY, r));
        forecastOrg(tallies, org, finished, events, seed);
      }
    }
  }
  // Each of issue 45's families draws from its own stream: leaving one out changes no other.
  FAMILIES.forEach((family, index) => {
    if (family === 'issue 35' || !RUN_FAMILIES.includes(family)) return;
    const r = rng(seed * 7919 + 1_000_003 * index);
    const trait = rng(seed * 7919 + 1_000_003 * index + 424_243);
    for (let o = 0; o < ORGS_PER_FAMILY; o += 1) {
      const org = newOrgOf(family, r, trait);
      const finished: FinishedEvent[] = Array.from({ length: org.finished }, (_, i) => {
        const e = eventOf(org, T0 - (org.finished - i) * 200 * DAY, r);
        return { startsAtMs: e.startsAtMs, capacity: e.capacity, points: e.points };
      });
      const events = Array.from({ length: TO_FORECAST_NEW }, () => eventOf(org, T0 + 200 * DAY, r));
      forecastOrg(tallies, org, finished, events, seed);
    }
  });
}

printSummary(tallies);
if (RUN_FAMILIES.includes('issue 35')) printIssue35(tallies);
printFamilies(tallies);
out(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);

// The track record's cost (`/events forecast accuracy`, App Home): an organization with 50
// finished events, read again with the same events (a new array, as every 10 minutes) and with one
// more finished. CPU time of this process, median of 5 organizations: other work on the machine
// stretches wall time, not this.
{
  const cpuMs = (run: () => void) => {
    const before = process.cpuUsage();
    run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const first: number[] = [];
  const same: number[] = [];
  const oneMore: number[] = [];
  for (let k = 0; k < 5; k += 1) {
    const r = rng(1000 + k);
    const org = orgOf(SHAPES[k % SHAPES.length] as Shape, r);
    // Most recently finished first, as the history lists them; ids apart per organization.
    const events = Array.from({ length: 51 }, (_, i) => {
      const e = eventOf(org, T0 - (51 - i) * 20 * DAY, r);
      return { eventId: `org${k}-${i}`, startsAtMs: e.startsAtMs, capacity: e.capacity, points: e.points };
    }).reverse();
    first.push(cpuMs(() => trackRecordOf(events.slice(1))));
    same.push(cpuMs(() => trackRecordOf(events.slice(1))));
    oneMore.push(cpuMs(() => trackRecordOf(events)));
  }
  out(
    `Track record at 50 finished events (CPU ms, median of 5): first ${median(first).toFixed(0)}, ` +
      `read again ${median(same).toFixed(0)}, one more finished ${median(oneMore).toFixed(0)}`,
  );
}
