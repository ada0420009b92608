/**
 * The forecast bench's tallies (`bench/forecast.ts`): each method's errors, sell-out errors and
 * range coverage by family, shape, history start, point and seed, and the figures read off them.
 */
import type { FinishedEvent } from '../src/forecast/forecast.js';
import type { SalesPoint } from '../src/history/sales-point.js';
import { type Family, HELD_OUT } from './forecast-curves.js';
import type { Org, SynthEvent } from './forecast-events.js';
import { type Case, METHODS, NAMES } from './forecast-methods.js';
import { DAY, POINTS } from './forecast-settings.js';

export interface Tally {
  err: number;
  n: number;
  sellOutErr: number;
  sellOutN: number;
  covered: number;
  rangeN: number;
}
export const tally = (): Tally => ({ err: 0, n: 0, sellOutErr: 0, sellOutN: 0, covered: 0, rangeN: 0 });

/** What a run has tallied. */
export interface Tallies {
  /** Tallies by method, then by "shape|point" and "seed". */
  cells: Map<string, Tally>;
  /** A family's labels and the held-out family's, as met (the order rows print in). */
  labelsOf: Map<Family, Set<string>>;
  cases: number;
  skipped: number;
}
export const newTallies = (): Tallies => ({ cells: new Map(), labelsOf: new Map(), cases: 0, skipped: 0 });

const cellOf = (tallies: Tallies, key: string) => {
  let t = tallies.cells.get(key);
  if (!t) {
    t = tally();
    tallies.cells.set(key, t);
  }
  return t;
};

export const groupOf = (family: Family) => (family === HELD_OUT ? 'held out' : 'the rest');

/** Forecasts every event of `org` at each point, with `finished` to learn from, and tallies each method. */
export function forecastOrg(tallies: Tallies, org: Org, finished: FinishedEvent[], events: SynthEvent[], seed: number) {
  let labels = tallies.labelsOf.get(org.family);
  if (!labels) {
    labels = new Set();
    tallies.labelsOf.set(org.family, labels);
  }
  labels.add(org.label);
  for (const e of events) {
    const start = e.fromOnSale ? 'on-sale' : 'part-way';
    for (const point of POINTS) {
      const period = e.startsAtMs - e.onSaleMs;
      const now = e.onSaleMs + Math.floor((point * period) / e.readEvery) * e.readEvery;
      const points = e.points.filter((p) => p.at <= now);
      if (points.length < 5 || now - (points[0] as SalesPoint).at < DAY) {
        tallies.skipped += 1;
        continue;
      }
      tallies.cases += 1;
      const c: Case = { now, startsAtMs: e.startsAtMs, capacity: e.capacity, points, finished };
      const soldNow = (points[points.length - 1] as SalesPoint).sold;
      for (const name of NAMES) {
        const said = METHODS[name]?.(c);
        if (!said) continue;
        const keys = [
          `f|${name}|${org.family}|${org.label}|${start}|${point}`,
          `f|${name}|${org.family}|${org.label}|${start}`,
          `f|${name}|${org.family}`,
          `g|${name}|${groupOf(org.family)}`,
          `g|${name}|${groupOf(org.family)}|seed|${seed}`,
        ];
        if (org.family === 'issue 35')
          keys.push(`${name}|${org.label}|${point}`, `${name}|seed|${seed}`, `${name}|all`);
        for (const key of keys) {
          const t = cellOf(tallies, key);
          t.err += Math.abs(said.likely - e.final) / e.capacity;
          t.n += 1;
          if (said.sellOut !== null && e.soldOutAt !== undefined && e.soldOutAt > now && soldNow < e.capacity) {
            t.sellOutErr += Math.abs((said.sellOut ?? e.startsAtMs) - e.soldOutAt) / DAY;
            t.sellOutN += 1;
          }
          if (said.low !== undefined && said.high !== undefined) {
            t.rangeN += 1;
            if (e.final >= said.low - 0.5 && e.final <= said.high + 0.5) t.covered += 1;
          }
        }
      }
    }
  }
}

export const mae = (t: Tally | undefined) => (t && t.n > 0 ? t.err / t.n : Number.NaN);
export const sellOutMae = (t: Tally | undefined) => (t && t.sellOutN > 0 ? t.sellOutErr / t.sellOutN : Number.NaN);
export const coverage = (t: Tally | undefined) => (t && t.rangeN > 0 ? t.covered / t.rangeN : Number.NaN);
export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
