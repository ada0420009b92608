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
 */

import { bookingCurveForecast } from '../src/forecast/booking-curve-forecast.js';
import { type FinishedEvent, type Forecast, forecast, paceOf, soldAt } from '../src/forecast/forecast.js';
import { trackRecordOf } from '../src/forecast/track-record.js';
import type { SalesPoint } from '../src/history/sales-point.js';

const SHORT = process.env.BENCH_SHORT === '1';
/** `BENCH_SEEDS=6,7,8` runs other seeds: what the methods were tuned on must hold on seeds they were not. */
const SEEDS = process.env.BENCH_SEEDS ? process.env.BENCH_SEEDS.split(',').map(Number) : SHORT ? [1] : [1, 2, 3, 4, 5];
const ORGS_PER_SHAPE = SHORT ? 6 : 16;
/** Organizations of each of issue 45's families, a seed. */
const ORGS_PER_FAMILY = SHORT ? 16 : 60;
const FINISHED = 8;
const TO_FORECAST = 5;
/** Events to forecast per organization in issue 45's families. */
const TO_FORECAST_NEW = 4;
const POINTS = [0.25, 0.5, 0.75] as const;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const READ_EVERY = 6 * HOUR;
const T0 = Date.parse('2026-06-01T00:00:00Z');

const out = (line: string) => process.stdout.write(`${line}\n`);

/** mulberry32: a small seeded generator. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * next();
  const normal = () => {
    const u = Math.max(1e-12, next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return { next, uniform, normal };
}
type Rng = ReturnType<typeof rng>;

const FAMILIES = ['issue 35', 'beta', 'logistic', 'spike', 'mixed'] as const;
type Family = (typeof FAMILIES)[number];
/** The new families with shapes of their own: the held-out family is drawn among these (mixed reuses the others'). */
const HOLD_OUT_AMONG = ['beta', 'logistic', 'spike'] as const;
/**
 * The family kept out of all tuning (issue 45): the first draw of mulberry32(45) among
 * `HOLD_OUT_AMONG`, made and committed before any tuning. It is `beta`. Mixed organizations never
 * draw its shapes.
 */
const HELD_OUT: Family = HOLD_OUT_AMONG[Math.floor(rng(45).next() * HOLD_OUT_AMONG.length)] as Family;
const RUN_FAMILIES: readonly Family[] = process.env.BENCH_FAMILIES
  ? FAMILIES.filter((f) => (process.env.BENCH_FAMILIES as string).split(',').includes(f))
  : FAMILIES;

const SHAPES = ['steady', 'late', 'late surge', 'early', 'S-curve'] as const;
type Shape = (typeof SHAPES)[number];

/** One event's cumulative share of its demand by each share of its selling period, jittered per event. */
function curveOf(shape: Shape, r: Rng): (x: number) => number {
  switch (shape) {
    case 'steady': {
      const a = r.uniform(0.85, 1.15);
      return (x) => x ** a;
    }
    case 'late': {
      const a = r.uniform(2, 3);
      return (x) => x ** a;
    }
    case 'late surge': {
      const base = r.uniform(0.15, 0.35);
      const from = r.uniform(0.78, 0.9);
      return (x) => (x < from ? (base * x) / from : base + (1 - base) * ((x - from) / (1 - from)) ** 0.8);
    }
    case 'early': {
      const a = r.uniform(2, 3.5);
      return (x) => 1 - (1 - x) ** a;
    }
    case 'S-curve': {
      const k = r.uniform(8, 13);
      const mid = r.uniform(0.4, 0.6);
      const s = (x: number) => 1 / (1 + Math.exp(-k * (x - mid)));
      return (x) => (s(x) - s(0)) / (s(1) - s(0));
    }
  }
}

/** Cumulative Beta(a, b) on [0, 1], tabulated (midpoint sums: finite where a or b is under 1). */
function betaCurve(a: number, b: number): (x: number) => number {
  const n = 1000;
  const cum = new Float64Array(n + 1);
  for (let i = 0; i < n; i += 1) {
    const x = (i + 0.5) / n;
    cum[i + 1] = (cum[i] as number) + x ** (a - 1) * (1 - x) ** (b - 1);
  }
  const total = cum[n] as number;
  return (x) => {
    const f = Math.min(n, Math.max(0, x * n));
    const i = Math.floor(f);
    if (i >= n) return 1;
    return ((cum[i] as number) + ((cum[i + 1] as number) - (cum[i] as number)) * (f - i)) / total;
  };
}

/** A logistic rise at `mid` with steepness `k`, scaled to run from 0 to 1 over the sale. */
function logisticCurve(k: number, mid: number): (x: number) => number {
  const s = (x: number) => 1 / (1 + Math.exp(-k * (x - mid)));
  return (x) => (s(x) - s(0)) / (s(1) - s(0));
}

/** `base` of the demand along x^power, the rest a burst at `at` (share of the sale) fading over `fade` (share). */
function spikeCurve(power: number, burst: number, at: number, fade: number): (x: number) => number {
  const whole = 1 - Math.exp(-(1 - at) / fade);
  return (x) => (1 - burst) * x ** power + burst * (x <= at ? 0 : (1 - Math.exp(-(x - at) / fade)) / whole);
}

/** One of issue 45's shapes: a name, and each event's curve (varying around the organization's). */
interface ShapeSpec {
  label: string;
  curve(r: Rng, periodDays: number): (x: number) => number;
}

/** An organization's shape in one of issue 45's families (mixed: see `mixedShapes`). */
function shapeOf(family: Exclude<Family, 'issue 35' | 'mixed'>, r: Rng): ShapeSpec {
  switch (family) {
    case 'beta': {
      // Issue 45's worst case was a late surge (Beta(a, b), a well above b: most demand in the last
      // weeks); a and b log-uniform on 0.5-5 drew one (mean over 0.8) for about 1 organization in
      // 12. A quarter of them are now drawn as one: b 0.5-1, a 4-12 times b.
      const surge = r.next() < 0.25;
      const b = Math.exp(r.uniform(Math.log(0.5), Math.log(surge ? 1 : 5)));
      const a = surge
        ? b * Math.exp(r.uniform(Math.log(4), Math.log(12)))
        : Math.exp(r.uniform(Math.log(0.5), Math.log(5)));
      const mean = a / (a + b);
      return {
        label:
          mean < 0.4 ? 'beta, early' : mean > 0.8 ? 'beta, late surge' : mean > 0.6 ? 'beta, late' : 'beta, middle',
        curve: (er) => betaCurve(a * Math.exp(0.15 * er.normal()), b * Math.exp(0.15 * er.normal())),
      };
    }
    case 'logistic': {
      const mid = r.uniform(0.25, 0.95);
      const k = Math.exp(r.uniform(Math.log(4), Math.log(25)));
      return {
        label: mid < 0.5 ? 'logistic, early' : mid < 0.7 ? 'logistic, middle' : 'logistic, late',
        curve: (er) =>
          logisticCurve(k * Math.exp(0.15 * er.normal()), Math.min(0.98, Math.max(0.05, mid + 0.05 * er.normal()))),
      };
    }
    case 'spike': {
      const onSale = r.next() < 0.5;
      const power = r.uniform(0.7, 2.5);
      const burst = r.uniform(0.15, 0.5);
      const at = onSale ? 0 : r.uniform(0.3, 0.85);
      return {
        label: onSale ? 'spike at on-sale' : 'spike at an announcement',
        curve: (er, periodDays) =>
          spikeCurve(
            power * Math.exp(0.1 * er.normal()),
            Math.min(0.8, burst * Math.exp(0.2 * er.normal())),
            // An announcement's day moves from event to event; the on-sale's does not.
            onSale ? 0 : Math.min(0.95, Math.max(0.1, at + 0.08 * er.normal())),
            er.uniform(0.3, 2) / periodDays,
          ),
      };
    }
  }
}

/** A mixed organization's two or three shapes, from the issue 35 shapes and the new families but the held-out one. */
function mixedShapes(r: Rng): ShapeSpec[] {
  const pool: (() => ShapeSpec)[] = [
    ...SHAPES.map((shape) => () => ({ label: shape, curve: (er: Rng) => curveOf(shape, er) })),
    ...HOLD_OUT_AMONG.filter((f) => f !== HELD_OUT).map((f) => () => shapeOf(f, r)),
  ];
  const count = r.next() < 0.5 ? 2 : 3;
  return Array.from({ length: count }, () => (pool[Math.floor(r.next() * pool.length)] as () => ShapeSpec)());
}

interface SynthEvent {
  onSaleMs: number;
  startsAtMs: number;
  capacity: number;
  /** Every read from the history's first to the start. */
  points: SalesPoint[];
  final: number;
  /** When it sold out, if it did. */
  soldOutAt: number | undefined;
  /** Whether its history starts at its on-sale. */
  fromOnSale: boolean;
  readEvery: number;
}

interface Org {
  family: Family;
  /** The shape's name (the row it is reported in). */
  label: string;
  /** Each event's curve: one of these shapes (one but for mixed organizations). */
  shapes: readonly ShapeSpec[];
  capacity: number;
  periodDays: number;
  demand: number;
  readEvery: number;
  finished: number;
  /** Issue 35's noise (log-normal with a drift) or Poisson counts with a drift. */
  noise: 'drift' | 'poisson';
  /** How far into the sale a history may start. */
  partWay: number;
  /**
   * How far an event's capacity and selling period vary around the organization's: `close`
   * (capacity x 0.75-1.33, period x 0.8-1.25) or `wide` (capacity x 0.5-2, period x 0.6-1.6, log-uniform:
   * some finished events are more than twice or under half the size or length of the one forecast).
   */
  eventScale: 'close' | 'wide';
}

/**
 * Whether an organization of a tuning family has the held-out family's trait (issue 45): finished
 * events of unlike sizes and selling periods (`wide`) and histories that start up to 60% in. Drawn
 * from a stream of its own (`trait`), so the organizations' other draws, and the held-out family's,
 * stay as they were. A share `UNLIKE_SHARE` of the tuning families' organizations have it.
 */
const UNLIKE_SHARE = 0.3;
const unlikeOf = (trait: Rng | undefined) => trait !== undefined && trait.next() < UNLIKE_SHARE;

function orgOf(shape: Shape, r: Rng, trait?: Rng): Org {
  const unlike = unlikeOf(trait);
  return {
    family: 'issue 35',
    label: shape,
    shapes: [{ label: shape, curve: (er) => curveOf(shape, er) }],
    capacity: Math.round(Math.exp(r.uniform(Math.log(80), Math.log(4000)))),
    periodDays: r.uniform(14, 90),
    demand: r.uniform(0.55, 1.2),
    readEvery: READ_EVERY,
    finished: FINISHED,
    noise: 'drift',
    partWay: unlike ? 0.6 : 0.3,
    eventScale: unlike ? 'wide' : 'close',
  };
}

/** An organization of one of issue 45's families. */
function newOrgOf(family: Exclude<Family, 'issue 35'>, r: Rng, trait?: Rng): Org {
  // The held-out family draws no trait: it has it always (below).
  const unlike = family !== 'beta' && unlikeOf(trait);
  const shapes = family === 'mixed' ? mixedShapes(r) : [shapeOf(family, r)];
  const periodDays = Math.exp(r.uniform(Math.log(5), Math.log(150)));
  // Reads every 1-24 hours, 20 to 800 of them over the sale.
  const everies = [1, 3, 6, 12, 24]
    .map((h) => h * HOUR)
    .filter((e) => {
      const reads = (periodDays * DAY) / e;
      return reads >= 20 && reads <= 800;
    });
  return {
    family,
    label: family === 'mixed' ? 'mixed' : (shapes[0] as ShapeSpec).label,
    shapes,
    capacity: Math.round(Math.exp(r.uniform(Math.log(30), Math.log(5000)))),
    periodDays,
    demand: r.uniform(0.4, 1.3),
    readEvery: everies[Math.floor(r.next() * everies.length)] as number,
    finished: 3 + Math.floor(r.next() * 10),
    noise: 'poisson',
    // The held-out family as issue 45 described it: histories that start up to 60% in (the others:
    // 45%, as they were tuned on, but for the tuning families' organizations with the trait, below),
    // and events of other sizes and selling periods than the one forecast.
    partWay: family === 'beta' || unlike ? 0.6 : 0.45,
    eventScale: family === 'beta' || unlike ? 'wide' : 'close',
  };
}

/** A Poisson count (a normal one for large means). */
function poisson(mean: number, r: Rng): number {
  if (mean <= 0) return 0;
  if (mean > 40) return Math.max(0, Math.round(mean + Math.sqrt(mean) * r.normal()));
  const limit = Math.exp(-mean);
  let k = 0;
  let p = r.next();
  while (p > limit) {
    k += 1;
    p *= r.next();
  }
  return k;
}

function eventOf(org: Org, startsAtMs: number, r: Rng): SynthEvent {
  const logUniform = (lo: number, hi: number) => Math.exp(r.uniform(Math.log(lo), Math.log(hi)));
  const wide = org.eventScale === 'wide';
  const capacity = Math.max(20, Math.round(org.capacity * (wide ? logUniform(0.5, 2) : r.uniform(0.75, 1.33))));
  const readEvery = org.readEvery;
  const periodScale = wide ? logUniform(0.6, 1.6) : r.uniform(0.8, 1.25);
  const reads = Math.max(4, Math.round((org.periodDays * periodScale * DAY) / readEvery));
  const period = reads * readEvery;
  const onSaleMs = startsAtMs - period;
  const demand = capacity * org.demand * Math.exp((org.noise === 'drift' ? 0.2 : 0.25) * r.normal());
  const spec =
    org.shapes.length === 1
      ? (org.shapes[0] as ShapeSpec)
      : (org.shapes[Math.floor(r.next() * org.shapes.length)] as ShapeSpec);
  const curve = spec.curve(r, period / DAY);
  // A history starting at the on-sale, or part-way into the selling period.
  const firstRead = r.next() < 0.5 ? 0 : Math.floor(r.uniform(0, org.partWay) * reads);
  const points: SalesPoint[] = [];
  let cumulative = 0;
  let drift = r.normal();
  let soldOutAt: number | undefined;
  for (let k = 0; k <= reads; k += 1) {
    const at = onSaleMs + k * readEvery;
    if (k > 0) {
      const expected = demand * (curve(k / reads) - curve((k - 1) / reads));
      const before = cumulative;
      if (org.noise === 'drift') {
        drift = 0.97 * drift + Math.sqrt(1 - 0.97 ** 2) * r.normal();
        cumulative += Math.max(0, expected * Math.exp(0.3 * drift + 0.35 * r.normal() - 0.1));
      } else {
        // The drift's memory is about three days, whatever the read interval.
        const keep = Math.exp(-readEvery / (3 * DAY));
        drift = keep * drift + Math.sqrt(1 - keep ** 2) * r.normal();
        cumulative += poisson(expected * Math.exp(0.2 * drift - 0.02), r);
      }
      if (soldOutAt === undefined && cumulative >= capacity)
        soldOutAt = at - readEvery + (readEvery * (capacity - before)) / (cumulative - before);
    }
    if (k >= firstRead) points.push({ at, sold: Math.min(capacity, Math.round(cumulative)), capacity });
  }
  return {
    onSaleMs,
    startsAtMs,
    capacity,
    points,
    final: (points[points.length - 1] as SalesPoint).sold,
    soldOutAt,
    fromOnSale: firstRead === 0,
    readEvery,
  };
}

/** What a method says at one point: the projected sold at the start, its range and the sell-out time. */
interface Said {
  likely: number;
  low?: number | undefined;
  high?: number | undefined;
  /** When it reaches capacity; null for a method that does not project a time. */
  sellOut: number | undefined | null;
}

interface Case {
  now: number;
  startsAtMs: number;
  capacity: number;
  points: SalesPoint[];
  finished: FinishedEvent[];
}

const fromForecast = (f: Forecast): Said | undefined =>
  f.kind === 'forecast'
    ? { likely: f.atStart.likely, low: f.atStart.low, high: f.atStart.high, sellOut: f.sellOut?.likely }
    : undefined;

/** A straight line from a rate per ms: the projection at the start and when it reaches capacity. */
function byRate(c: Case, sold: number, perMs: number): Said {
  const likely = Math.min(Math.max(c.capacity, sold), sold + perMs * (c.startsAtMs - c.now));
  const t = perMs > 0 && sold < c.capacity ? c.now + (c.capacity - sold) / perMs : undefined;
  return { likely, sellOut: t !== undefined && t < c.startsAtMs ? t : undefined };
}

const METHODS: Record<string, (c: Case) => Said | undefined> = {
  before: (c) => fromForecast(bookingCurveForecast(c)),
  forecaster: (c) => fromForecast(forecast(c)),
  // The forecaster with too few finished events to backtest on (two: as with none, the pooled prior).
  'forecaster, 2 finished': (c) => fromForecast(forecast({ ...c, finished: c.finished.slice(-2) })),
  // Additive pickup, as revenue management has it: sold now plus the average, over the finished
  // events, of (final - sold at the same share of the selling period), the history's first read
  // taken as the on-sale.
  pickup: (c) => {
    const first = c.points[0] as SalesPoint;
    const sold = soldAt(c.points, c.now) as number;
    const share = (c.now - first.at) / (c.startsAtMs - first.at);
    const pickups = c.finished.map((e) => {
      const opens = (e.points[0] as SalesPoint).at;
      const final = soldAt(e.points, e.startsAtMs) as number;
      return final - (soldAt(e.points, opens + share * (e.startsAtMs - opens)) as number);
    });
    const likely = sold + pickups.reduce((a, b) => a + b, 0) / pickups.length;
    return { likely: Math.min(Math.max(c.capacity, sold), likely), sellOut: null };
  },
  line: (c) => {
    const first = c.points[0] as SalesPoint;
    const sold = soldAt(c.points, c.now) as number;
    return byRate(c, sold, (sold - first.sold) / (c.now - first.at));
  },
  pace: (c) => {
    const sold = soldAt(c.points, c.now) as number;
    const pace = paceOf(c.points, c.now);
    const perDay = pace.perDayLastWeek ?? (pace.perHourLastDay ?? 0) * 24;
    return byRate(c, sold, perDay / DAY);
  },
};
const NAMES = Object.keys(METHODS);

interface Tally {
  err: number;
  n: number;
  sellOutErr: number;
  sellOutN: number;
  covered: number;
  rangeN: number;
}
const tally = (): Tally => ({ err: 0, n: 0, sellOutErr: 0, sellOutN: 0, covered: 0, rangeN: 0 });

/** Tallies by method, then by "shape|point" and "seed". */
const byCell = new Map<string, Tally>();
const cellOf = (key: string) => {
  let t = byCell.get(key);
  if (!t) {
    t = tally();
    byCell.set(key, t);
  }
  return t;
};

const started = performance.now();
let cases = 0;
let skipped = 0;
/** A family's labels and the held-out family's, as met (the order rows print in). */
const labelsOf = new Map<Family, Set<string>>();
const groupOf = (family: Family) => (family === HELD_OUT ? 'held out' : 'the rest');

/** Forecasts every event of `org` at each point, with `finished` to learn from, and tallies each method. */
function forecastOrg(org: Org, finished: FinishedEvent[], events: SynthEvent[], seed: number) {
  let labels = labelsOf.get(org.family);
  if (!labels) {
    labels = new Set();
    labelsOf.set(org.family, labels);
  }
  labels.add(org.label);
  for (const e of events) {
    const start = e.fromOnSale ? 'on-sale' : 'part-way';
    for (const point of POINTS) {
      const period = e.startsAtMs - e.onSaleMs;
      const now = e.onSaleMs + Math.floor((point * period) / e.readEvery) * e.readEvery;
      const points = e.points.filter((p) => p.at <= now);
      if (points.length < 5 || now - (points[0] as SalesPoint).at < DAY) {
        skipped += 1;
        continue;
      }
      cases += 1;
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
          const t = cellOf(key);
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
        forecastOrg(org, finished, events, seed);
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
      forecastOrg(org, finished, events, seed);
    }
  });
}

const f3 = (x: number) => x.toFixed(3);
const f1 = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(1));
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const mae = (t: Tally | undefined) => (t && t.n > 0 ? t.err / t.n : Number.NaN);
const sellOutMae = (t: Tally | undefined) => (t && t.sellOutN > 0 ? t.sellOutErr / t.sellOutN : Number.NaN);
const coverage = (t: Tally | undefined) => (t && t.rangeN > 0 ? t.covered / t.rangeN : Number.NaN);
const get = (key: string) => byCell.get(key);
const row = (cells: string[]) => out(`| ${cells.join(' | ')} |`);
const cellText = (t: Tally | undefined) => (t && t.rangeN > 0 ? `${f3(mae(t))} (${pct(coverage(t))})` : f3(mae(t)));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const verdict = (ok: boolean) => (ok ? 'pass' : 'MISS');
const STARTS = ['on-sale', 'part-way'] as const;

out(
  `\nForecast benchmark: ${cases} forecasts over ${SEEDS.length} seed(s), families ${RUN_FAMILIES.join(', ')} ` +
    `(${skipped} points before the history skipped); held out of all tuning: ${HELD_OUT}`,
);

/** Issue 35's tables and targets, on the family they were set on. */
function printIssue35() {
  out(
    `\nForecast benchmark, the issue 35 family: ${SEEDS.length} seed(s) x ${SHAPES.length} shapes x ${ORGS_PER_SHAPE} organizations, ` +
      `${FINISHED} finished + ${TO_FORECAST} to forecast each; ${get('forecaster|all')?.n ?? 0} forecasts\n`,
  );
  out('Mean absolute error of the sold at the start, as a share of capacity (range coverage in brackets)\n');
  row(['shape', 'point', ...NAMES]);
  row(['---', '---', ...NAMES.map(() => '---')]);
  /** Per method, the mean over shape x point cells (each cell weighs the same). */
  const cellMeans: Record<string, { err: number[]; sellOut: Map<Shape, Tally>; cover: number[] }> = {};
  for (const name of NAMES) cellMeans[name] = { err: [], sellOut: new Map(), cover: [] };
  for (const shape of SHAPES) {
    for (const point of POINTS) {
      const cells = NAMES.map((name) => {
        const t = get(`${name}|${shape}|${point}`);
        const m = cellMeans[name] as (typeof cellMeans)[string];
        m.err.push(mae(t));
        if (t && t.rangeN > 0) m.cover.push(coverage(t));
        const s = m.sellOut.get(shape) ?? tally();
        s.sellOutErr += t?.sellOutErr ?? 0;
        s.sellOutN += t?.sellOutN ?? 0;
        m.sellOut.set(shape, s);
        return t && t.rangeN > 0 ? `${f3(mae(t))} (${pct(coverage(t))})` : f3(mae(t));
      });
      row([shape, `${point * 100}%`, ...cells]);
    }
  }
  const avg = (name: string) => mean(cellMeans[name]?.err ?? []);
  const avgCover = (name: string) => coverage(get(`${name}|all`));
  row([
    '**average**',
    '',
    ...NAMES.map((name) =>
      Number.isNaN(avgCover(name)) ? `**${f3(avg(name))}**` : `**${f3(avg(name))}** (${pct(avgCover(name))})`,
    ),
  ]);
  row([
    'per seed',
    '',
    ...NAMES.map((name) => {
      const each = SEEDS.map((seed) => mae(get(`${name}|seed|${seed}`)));
      return `${f3(Math.min(...each))}-${f3(Math.max(...each))}`;
    }),
  ]);

  out('\nMean absolute error of the sell-out time in days, events that sell out after the forecast\n');
  row(['shape', ...NAMES]);
  row(['---', ...NAMES.map(() => '---')]);
  for (const shape of SHAPES) row([shape, ...NAMES.map((name) => f1(sellOutMae(cellMeans[name]?.sellOut.get(shape))))]);
  row(['**all**', ...NAMES.map((name) => `**${f1(sellOutMae(get(`${name}|all`)))}**`)]);

  // The targets (issue 35): against the forecaster after the change.
  const F = 'forecaster';
  out('\nTargets (issue 35)');
  const fErr = avg(F);
  out(
    `- ${verdict(fErr <= 0.8 * avg('pickup'))}: error ${f3(fErr)} <= 0.8 x pickup's ${f3(avg('pickup'))} (${f3(fErr / avg('pickup'))} x)`,
  );
  out(
    `- ${verdict(fErr <= 0.4 * avg('line'))}: error ${f3(fErr)} <= 0.4 x a straight line's ${f3(avg('line'))} (${f3(fErr / avg('line'))} x)`,
  );
  const worst = SHAPES.flatMap((shape) =>
    POINTS.map((point) => ({
      shape,
      point,
      ratio: mae(get(`${F}|${shape}|${point}`)) / mae(get(`pickup|${shape}|${point}`)),
    })),
  ).sort((a, b) => b.ratio - a.ratio)[0];
  if (worst)
    out(
      `- ${verdict(worst.ratio <= 1.2)}: no shape and point worse than pickup by more than 20% (worst: ${worst.shape} at ${worst.point * 100}%, ${f1(100 * (worst.ratio - 1))}%)`,
    );
  const cover = avgCover(F);
  out(`- ${verdict(cover >= 0.75 && cover <= 0.85)}: the 80% range covers ${pct(cover)} (75-85%)`);
  const fewCover = avgCover('forecaster, 2 finished');
  out(
    `- ${verdict(fewCover >= 0.75 && fewCover <= 0.85)}: with 2 finished events, the pooled prior's 80% range covers ${pct(fewCover)} (75-85%)`,
  );
  const sellOutMisses = SHAPES.filter(
    (shape) => sellOutMae(cellMeans[F]?.sellOut.get(shape)) > sellOutMae(cellMeans.line?.sellOut.get(shape)),
  );
  out(
    `- ${verdict(sellOutMisses.length === 0)}: sell-out time no further off than a straight line's for any shape${sellOutMisses.length ? ` (further for ${sellOutMisses.join(', ')})` : ''}`,
  );
}
if (RUN_FAMILIES.includes('issue 35')) printIssue35();

/** Issue 45's tables and targets: every family, the held-out one apart. */
function printFamilies() {
  out(
    '\nFamilies (issue 45): mean absolute error of the sold at the start, share of capacity (range coverage in brackets)',
  );
  const shown = ['forecaster', 'pickup', 'before', 'line'];
  const ordered = [...RUN_FAMILIES.filter((f) => f !== HELD_OUT), ...RUN_FAMILIES.filter((f) => f === HELD_OUT)];
  for (const family of ordered) {
    out(`\n${family === HELD_OUT ? `**${family}: HELD OUT of all tuning**` : `**${family}**`}\n`);
    row(['shape', 'history starts', 'forecasts', ...shown, 'forecaster / pickup']);
    row(['---', '---', '---', ...shown.map(() => '---'), '---']);
    for (const label of labelsOf.get(family) ?? []) {
      for (const start of STARTS) {
        const key = (name: string) => `f|${name}|${family}|${label}|${start}`;
        const t = get(key('forecaster'));
        if (!t) continue;
        row([
          label,
          start,
          String(t.n),
          ...shown.map((name) => cellText(get(key(name)))),
          f3(mae(t) / mae(get(key('pickup')))),
        ]);
      }
    }
    const all = (name: string) => get(`f|${name}|${family}`);
    row([
      '**all**',
      '',
      String(all('forecaster')?.n ?? 0),
      ...shown.map((name) => cellText(all(name))),
      f3(mae(all('forecaster')) / mae(all('pickup'))),
    ]);
  }
  out('\nTargets (issue 45), on the held-out family and on the rest');
  // A short run's cells hold a few dozen forecasts each: a cell's ratio swings with one organization.
  if (SHORT) out('(a short run: too few forecasts a cell to judge these; the full run is the measure)');
  for (const group of ['held out', 'the rest'] as const) {
    const families = RUN_FAMILIES.filter((f) => groupOf(f) === group);
    const name = group === 'held out' ? `held out (${HELD_OUT})` : `the rest (${families.join(', ')})`;
    if (families.length === 0) {
      out(`- ${name}: not run`);
      continue;
    }
    // The mean over family x shape x start x point cells (each cell weighs the same).
    const cells = families.flatMap((family) =>
      [...(labelsOf.get(family) ?? [])].flatMap((label) =>
        STARTS.flatMap((start) => POINTS.map((point) => `${family}|${label}|${start}|${point}`)),
      ),
    );
    const cellMean = (method: string) =>
      mean(cells.map((cell) => mae(get(`f|${method}|${cell}`))).filter((x) => !Number.isNaN(x)));
    const ratio = cellMean('forecaster') / cellMean('pickup');
    out(
      `- ${verdict(ratio <= 0.9)}: ${name}: error ${f3(cellMean('forecaster'))} <= 0.9 x pickup's ${f3(cellMean('pickup'))} (${f3(ratio)} x)`,
    );
    const perSeed = SEEDS.map((seed) => {
      const key = (method: string) => get(`g|${method}|${group}|seed|${seed}`);
      return mae(key('forecaster')) / mae(key('pickup'));
    });
    out(`  per seed, pooled: ${f3(Math.min(...perSeed))}-${f3(Math.max(...perSeed))} x pickup's`);
    const worst = families
      .flatMap((family) =>
        [...(labelsOf.get(family) ?? [])].flatMap((label) =>
          STARTS.map((start) => {
            const key = (method: string) => get(`f|${method}|${family}|${label}|${start}`);
            return { family, label, start, ratio: mae(key('forecaster')) / mae(key('pickup')) };
          }),
        ),
      )
      .filter((w) => !Number.isNaN(w.ratio))
      .sort((x, y) => y.ratio - x.ratio)[0];
    if (worst)
      out(
        `- ${verdict(worst.ratio <= 1.2)}: ${name}: no shape and start worse than 1.2 x pickup's (worst: ${worst.label}, history from ${worst.start}, ${f3(worst.ratio)} x)`,
      );
    const cover = coverage(get(`g|forecaster|${group}`));
    out(
      `- ${verdict(cover >= 0.78 && cover <= 0.85)}: ${name}: the 80% range holds the outcome ${pct(cover)} (78-85%)`,
    );
  }
}
printFamilies();
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
