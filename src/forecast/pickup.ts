import type { SalesPoint } from '../history/sales-point.js';
import { soldAt } from './sold-at.js';

/**
 * Pickup: what finished events sold from the same point of their sale to its start, added to (or
 * multiplying) what this event has sold by now. Pure.
 */

const DAY = 86_400_000;
/** The recent run of sales `paced` pickup reads, and how long it is carried on. */
const PACED_WINDOW_MS = 7 * DAY;
const PACED_CARRIES_MS = 14 * DAY;

/** An event's sale as the pickup methods read it. */
export interface Sale {
  startsAtMs: number;
  capacity: number | undefined;
  /** Oldest first. */
  points: readonly SalesPoint[];
  /**
   * When its sale opened, known only when its history starts there (its first point shows nothing
   * sold); undefined when the history starts after sales began.
   */
  opensAt: number | undefined;
}

/** A finished event: its sold at the start is known. */
export interface FinishedSale extends Sale {
  final: number;
  /**
   * Its demand, unconstrained: sold at `t` as read, but past a sell-out its pace before it carried
   * on (what it would have sold with seats left). Pickup learns from demand: a sold-out event's
   * flat end would teach that sales stop, and pull forecasts and sell-out times late.
   */
  demandAt(t: number): number | undefined;
}

/** How far back from a sell-out the pace it would have kept is read. */
const PACE_BEFORE_SELL_OUT_MS = 2 * DAY;

/** `soldIn`, carried on past a sell-out at the pace before it. */
function demandOf(sale: Sale): (t: number) => number | undefined {
  const capacity = sale.capacity;
  const full = capacity === undefined ? -1 : sale.points.findIndex((p) => p.sold >= capacity);
  const first = sale.points[0];
  if (capacity === undefined || full <= 0 || !first) return (t) => soldIn(sale, t);
  const out = sale.points[full] as SalesPoint;
  const from = Math.max(first.at, out.at - PACE_BEFORE_SELL_OUT_MS);
  const perMs = from < out.at ? Math.max(0, out.sold - (soldIn(sale, from) ?? out.sold)) / (out.at - from) : 0;
  return (t) => (t <= out.at ? soldIn(sale, t) : out.sold + perMs * (t - out.at));
}

/** Align finished events by the share of their selling period gone, or by the time left before their start. */
export type Alignment = 'share' | 'days';

/** A point of a sale: the share of its selling period gone (when its opening is known) and the time left. */
export interface Moment {
  share: number | undefined;
  beforeStartMs: number;
}

/** When the history starts after sales began (its first point already shows tickets sold), the opening is unknown. */
export const opensAtOf = (points: readonly SalesPoint[]): number | undefined => {
  const first = points[0];
  return first && first.sold <= 0 ? first.at : undefined;
};

export const momentOf = (sale: Sale, at: number): Moment => ({
  share: sale.opensAt === undefined ? undefined : (at - sale.opensAt) / (sale.startsAtMs - sale.opensAt),
  beforeStartMs: sale.startsAtMs - at,
});

/** The time in `sale` at the same point as `moment`; undefined where the alignment cannot say it. */
export function alignedAt(sale: Sale, moment: Moment, alignment: Alignment): number | undefined {
  if (alignment === 'share')
    return moment.share === undefined || sale.opensAt === undefined
      ? undefined
      : sale.opensAt + moment.share * (sale.startsAtMs - sale.opensAt);
  return sale.startsAtMs - moment.beforeStartMs;
}

/** Sold at `t` in a sale, 0 before a known opening; undefined before a history that started late. */
export function soldIn(sale: Sale, t: number): number | undefined {
  if (sale.opensAt !== undefined && t <= sale.opensAt) return 0;
  return soldAt(sale.points, t);
}

/** A finished sale with its sold at the start, when its history was read until near the start. */
export function finishedSale(event: {
  startsAtMs: number;
  capacity: number | undefined;
  points: readonly SalesPoint[];
}) {
  const first = event.points[0];
  const last = event.points[event.points.length - 1];
  if (!first || !last || event.points.length < 3) return undefined;
  const span = event.startsAtMs - first.at;
  if (span < DAY) return undefined;
  // Its final sales are known only if it was still read near its start (within a tenth of its
  // history, a day at least, a week at most).
  if (last.at < event.startsAtMs - Math.min(7 * DAY, Math.max(DAY, span / 10))) return undefined;
  const final = soldAt(event.points, event.startsAtMs);
  if (final === undefined || final <= 0) return undefined;
  const sale: Sale = {
    startsAtMs: event.startsAtMs,
    capacity: event.capacity ?? last.capacity,
    points: event.points,
    opensAt: opensAtOf(event.points),
  };
  const finished: FinishedSale = { ...sale, final, demandAt: demandOf(sale) };
  return finished;
}

/** A projection: sold at the start, and sold at any time from now to the start. */
export interface Projection {
  atStart: number;
  /** Demand by `t`, past capacity where the finished events it learned from sold out (for sell-out times). */
  at(t: number): number;
  /** Finished events it learned from. */
  from: number;
}

/** How today's sales carry into the projection (in shares of capacity). */
export type PickupModel =
  /** Sold now plus the median of what the finished events sold from the same point on. */
  | 'additive'
  /** Sold now times the finished events' sold at the start over their sold at the same point. */
  | 'multiplicative'
  /** Their mean sold at the start, plus a least-squares slope (drawn towards 1, additive) times how far ahead of them this one is. */
  | 'regression'
  /**
   * Additive, plus how far ahead of (or behind) the finished events this one sold over the last
   * week, carried on for up to two weeks more: a run of strong or weak sales lasts a while.
   */
  | 'paced';

/** The slope of a regression on `n` finished events, drawn towards 1 (additive) by `shrink`. */
function slopeOf(xs: readonly number[], ys: readonly number[], shrink: number): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i += 1) {
    sxx += ((xs[i] as number) - mx) ** 2;
    sxy += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
  }
  const ols = sxx > 0 ? Math.min(3, Math.max(0, sxy / sxx)) : 1;
  return (sxx * ols + shrink) / (sxx + shrink);
}

/**
 * How much faster than the finished events (their median) this sale sold over the last week, in
 * shares of capacity per ms; 0 where the history or theirs does not reach back a week.
 */
function recentlyAhead(
  sale: Sale,
  now: number,
  refs: readonly { e: FinishedSale; sold: number; size: number }[],
  alignment: Alignment,
  size: number,
): number {
  const before = soldIn(sale, now - PACED_WINDOW_MS);
  const sold = soldIn(sale, now);
  if (before === undefined || sold === undefined) return 0;
  const then = momentOf(sale, now - PACED_WINDOW_MS);
  const theirs: number[] = [];
  for (const r of refs) {
    const at = alignedAt(r.e, then, alignment);
    const soldThen = at === undefined ? undefined : soldIn(r.e, at);
    if (soldThen !== undefined) theirs.push((r.sold - soldThen) / r.size);
  }
  if (theirs.length < 2) return 0;
  theirs.sort((a, b) => a - b);
  const half = (theirs.length - 1) / 2;
  const median = ((theirs[Math.floor(half)] as number) + (theirs[Math.ceil(half)] as number)) / 2;
  return ((sold - before) / size - median) / PACED_WINDOW_MS;
}

/**
 * Pickup from finished events aligned with `alignment`, in shares of capacity (this event's and
 * each finished one's, when both are known; tickets otherwise). Undefined with fewer than `least`
 * finished events the alignment can place.
 */
export function pickup(
  sale: Sale,
  now: number,
  finished: readonly FinishedSale[],
  alignment: Alignment,
  model: PickupModel = 'additive',
  options: { least?: number; shrink?: number } = {},
): Projection | undefined {
  const sold = soldIn(sale, now) ?? 0;
  const moment = momentOf(sale, now);
  const scaled = sale.capacity !== undefined && finished.every((e) => e.capacity !== undefined && e.capacity > 0);
  const size = scaled ? (sale.capacity as number) : 1;
  const refs: { e: FinishedSale; x: number; sold: number; size: number }[] = [];
  for (const e of finished) {
    const at = alignedAt(e, moment, alignment);
    if (at === undefined) continue;
    const soldThen = soldIn(e, at);
    if (soldThen === undefined) continue;
    const eSize = scaled ? (e.capacity as number) : 1;
    refs.push({ e, x: soldThen / eSize, sold: soldThen, size: eSize });
  }
  if (refs.length < (options.least ?? 2)) return undefined;
  const x = sold / size;
  const xs = refs.map((r) => r.x);
  const sumX = xs.reduce((a, b) => a + b, 0);
  const meanX = sumX / refs.length;
  const shrink = options.shrink ?? 0.01;
  const aheadPerMs = model === 'paced' ? recentlyAhead(sale, now, refs, alignment, size) : 0;
  /** The projection, in tickets, from each finished event's sold (as a share) at `t`, a later point. */
  const project = (ys: number[], t: number) => {
    const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
    if (model === 'multiplicative' && sumX > 0 && x > 0) return size * x * (meanY / meanX);
    if (model === 'regression') return size * (meanY + slopeOf(xs, ys, shrink) * (x - meanX));
    // Additive: the median pickup, not the mean: one finished event that sold far more or less
    // than the rest moves a mean, and the median misses by least on average (absolute error).
    const pickups = ys.map((y, i) => y - (xs[i] as number)).sort((a, b) => a - b);
    const half = (pickups.length - 1) / 2;
    const median = ((pickups[Math.floor(half)] as number) + (pickups[Math.ceil(half)] as number)) / 2;
    return size * (x + median + aheadPerMs * Math.min(PACED_CARRIES_MS, t - now));
  };
  return {
    atStart: project(
      refs.map((r) => r.e.final / r.size),
      sale.startsAtMs,
    ),
    at(t) {
      if (t <= now) return sold;
      const m = momentOf(sale, t);
      return project(
        refs.map((r) => {
          const at = alignedAt(r.e, m, alignment) ?? r.e.startsAtMs;
          const end = r.e.demandAt(r.e.startsAtMs) ?? r.e.final;
          return (at >= r.e.startsAtMs ? end : Math.max(r.sold, r.e.demandAt(at) ?? r.sold)) / r.size;
        }),
        t,
      );
    },
    from: refs.length,
  };
}
