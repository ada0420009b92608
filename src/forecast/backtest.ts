import type { SalesPoint } from '../history/sales-point.js';
import {
  type Alignment,
  alignedAt,
  type FinishedSale,
  type Moment,
  type PickupModel,
  type Projection,
  pickup,
  type Sale,
  soldIn,
} from './pickup.js';

const DAY = 86_400_000;

/**
 * The backtest: how each method would have done on the organization's own finished events at the
 * same point of their sale, each forecast from the others (leave one out). Pure.
 */

/** A way to project a sale from finished ones. */
export interface Method {
  name: string;
  project(sale: Sale, now: number, finished: readonly FinishedSale[]): Projection | undefined;
}

/** A straight line through the sales so far, from the history's first point. */
export function straightLine(sale: Sale, now: number): Projection | undefined {
  const first = sale.points[0];
  const sold = soldIn(sale, now);
  const from = sale.opensAt ?? first?.at;
  if (!first || sold === undefined || from === undefined || now <= from) return undefined;
  const perMs = Math.max(0, sold - (sale.opensAt === undefined ? first.sold : 0)) / (now - from);
  return { atStart: sold + perMs * (sale.startsAtMs - now), at: (t) => sold + perMs * Math.max(0, t - now), from: 0 };
}

/** The recent pace: sold per day over the last week (else the last day) kept up to the start. */
export function recentPace(sale: Sale, now: number): Projection | undefined {
  const sold = soldIn(sale, now);
  if (sold === undefined) return undefined;
  const from = Math.max(now - 7 * DAY, sale.points[0]?.at ?? now);
  if (now - from < DAY / 4) return undefined;
  const perMs = Math.max(0, sold - (soldIn(sale, from) ?? sold)) / (now - from);
  return { atStart: sold + perMs * (sale.startsAtMs - now), at: (t) => sold + perMs * Math.max(0, t - now), from: 0 };
}

const pickupMethod = (alignment: Alignment, model: PickupModel, shrink?: number): Method => ({
  name: `pickup-${alignment}${model === 'additive' ? '' : `-${model}`}${shrink === undefined ? '' : `-${shrink}`}`,
  project: (sale, now, finished) =>
    pickup(sale, now, finished, alignment, model, shrink === undefined ? {} : { shrink }),
});

/**
 * The methods the backtest chooses among, with each one's pooled prior: its mean absolute error
 * (share of capacity) over many organizations in `bench/forecast.ts`, what it is trusted to do
 * before an organization's own finished events say otherwise.
 */
export const METHODS: readonly { method: Method; prior: number }[] = [
  { method: pickupMethod('share', 'additive'), prior: 0.09 },
  { method: pickupMethod('share', 'regression', 0.03), prior: 0.09 },
  { method: pickupMethod('days', 'additive'), prior: 0.085 },
  { method: pickupMethod('days', 'regression', 0.03), prior: 0.085 },
  // Paced pickup: trusted as much as plain pickup until the organization's events say otherwise.
  { method: pickupMethod('share', 'paced'), prior: 0.085 },
  { method: pickupMethod('days', 'paced'), prior: 0.085 },
  { method: { name: 'recent-pace', project: recentPace }, prior: 0.25 },
  { method: { name: 'straight-line', project: straightLine }, prior: 0.25 },
];

/** One finished event forecast from the others at the same point: its outcome and each method's projection. */
export interface Trial {
  final: number;
  sold: number;
  capacity: number | undefined;
  /** What residuals are measured in: its capacity, else its final. */
  norm: number;
  /** By method, in `METHODS` order; undefined where the method could not say. */
  projected: (number | undefined)[];
}

/** A projection kept between sold now and capacity (an oversold event stays at its sold). */
export const clampTo = (value: number, sold: number, capacity: number | undefined) =>
  Math.max(sold, capacity === undefined ? value : Math.min(Math.max(capacity, sold), value));

/** Each finished event forecast from the others at `moment` (by share when both openings are known, else by time left). */
export function backtest(
  moment: Moment,
  finished: readonly FinishedSale[],
  methods: readonly Method[] = METHODS.map((m) => m.method),
): Trial[] {
  const trials: Trial[] = [];
  finished.forEach((e, i) => {
    const alignment: Alignment = moment.share !== undefined && e.opensAt !== undefined ? 'share' : 'days';
    const at = alignedAt(e, moment, alignment);
    const first = e.points[0];
    if (at === undefined || !first || at <= first.at || at >= e.startsAtMs) return;
    const points = e.points.filter((p: SalesPoint) => p.at <= at);
    if (points.length < 2) return;
    const sale: Sale = { startsAtMs: e.startsAtMs, capacity: e.capacity, points, opensAt: e.opensAt };
    const sold = soldIn(sale, at) ?? 0;
    const others = finished.filter((_, j) => j !== i);
    trials.push({
      final: e.final,
      sold,
      capacity: e.capacity,
      norm: e.capacity ?? e.final,
      projected: methods.map((m) => {
        const p = m.project(sale, at, others);
        return p === undefined ? undefined : clampTo(p.atStart, sold, e.capacity);
      }),
    });
  });
  return trials;
}
