import { bookingCurve, GRID } from './booking-curve.js';
import type { Forecast, ForecastInput, ForecastOptions, SellOut } from './forecast-types.js';
import { paceOf } from './pace-of.js';
import { soldAt } from './sold-at.js';

/**
 * The booking-curve forecast (the forecaster before issue 35, kept as one of the methods and as the
 * benchmark's "before"). With at least `minSimilar` finished events of the organization like this
 * one (by capacity and selling-period length), their booking curves (the share of final sales sold
 * by each share of the selling period gone) give the shape: the median curve, scaled to what this
 * event has sold so far, projects its sales at the start; the quartile curves give the range.
 * Otherwise the recent pace, with a wide range skewed upwards.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The value of a sampled curve at a share of the period (straight lines between samples). */
function curveAt(curve: readonly number[], share: number): number {
  const x = Math.min(1, Math.max(0, share)) * (GRID.length - 1);
  const i = Math.min(GRID.length - 2, Math.floor(x));
  const a = curve[i] as number;
  const b = curve[i + 1] as number;
  return a + (b - a) * (x - i);
}

const quantile = (sorted: readonly number[], q: number) => {
  const x = (sorted.length - 1) * q;
  const i = Math.floor(x);
  const a = sorted[i] as number;
  const b = sorted[Math.min(sorted.length - 1, i + 1)] as number;
  return a + (b - a) * (x - i);
};

/** The quartile and median curves of several, sample by sample. */
function quartileCurves(curves: readonly number[][]): { low: number[]; median: number[]; high: number[] } {
  const at = (q: number) =>
    GRID.map((_, i) =>
      quantile(
        curves.map((c) => c[i] as number).sort((a, b) => a - b),
        q,
      ),
    );
  return { low: at(0.25), median: at(0.5), high: at(0.75) };
}

const similar = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || (a > 0 && b > 0 && Math.max(a, b) / Math.min(a, b) <= 2);

/** The first time from `from` on at which `final × curve` reaches `capacity`, if before the start. */
function reachesAt(
  curve: readonly number[],
  final: number,
  capacity: number,
  start: number,
  period: number,
  from: number,
) {
  const steps = 200;
  const firstShare = (from - (start - period)) / period;
  for (let s = 0; s <= steps; s += 1) {
    const share = firstShare + ((1 - firstShare) * s) / steps;
    if (final * curveAt(curve, share) >= capacity) return start - period + share * period;
  }
  return undefined;
}

/** A sell-out whose earliest is never after its likely, nor its latest before it. */
const ordered = (earliest: number | undefined, likely: number, latest: number | undefined): SellOut => ({
  earliest: Math.min(earliest ?? likely, likely),
  likely,
  latest: latest === undefined ? undefined : Math.max(latest, likely),
});

/** The pace, the projected sold at the start and the sell-out time, by the best method the history allows. */
export function bookingCurveForecast(input: ForecastInput, options: ForecastOptions = {}): Forecast {
  const { now, startsAtMs, points } = input;
  const pace = paceOf(points, now);
  const first = points[0];
  const last = points[points.length - 1];
  const minPoints = options.minPoints ?? 3;
  const minSpanMs = options.minSpanMs ?? 6 * HOUR;
  if (!first || !last || points.length < minPoints || last.at - first.at < minSpanMs) {
    const needs = `${minPoints} reports over ${minSpanMs / HOUR} hours`;
    const reason = `fewer than ${needs}`;
    // With a first report, a forecast comes once the history spans enough (and enough reports came).
    if (!first || startsAtMs <= now) return { kind: 'none', reason, pace };
    return { kind: 'none', reason, pace, readyAt: Math.max(first.at + minSpanMs, now), needs };
  }
  if (startsAtMs <= now) return { kind: 'none', reason: 'the event has started', pace };
  const sold = soldAt(points, now) ?? last.sold;
  const capacity = input.capacity ?? last.capacity;
  // Never projected past capacity, nor below what has sold (an oversold event is at its sold).
  const cap = (n: number) => (capacity === undefined ? n : Math.min(Math.max(capacity, sold), n));
  const period = startsAtMs - first.at;

  const curves = input.finished
    .filter((e) => similar(e.capacity, capacity) && similar(e.startsAtMs - (e.points[0]?.at ?? e.startsAtMs), period))
    .map(bookingCurve)
    .filter((c): c is number[] => c !== undefined);
  const share = (now - first.at) / period;
  if (curves.length >= (options.minSimilar ?? 3)) {
    const q = quartileCurves(curves);
    const sharedBy = (curve: number[]) => Math.max(0.02, curveAt(curve, share));
    // A higher curve means more should have sold by now: the same sales then project lower.
    const finals = { low: sold / sharedBy(q.high), likely: sold / sharedBy(q.median), high: sold / sharedBy(q.low) };
    const atStart = {
      low: cap(Math.max(sold, finals.low)),
      likely: cap(Math.max(sold, finals.likely)),
      high: cap(Math.max(sold, finals.high)),
    };
    let sellOut: SellOut | undefined;
    if (capacity !== undefined && sold < capacity) {
      const likely = reachesAt(q.median, finals.likely, capacity, startsAtMs, period, now);
      if (likely !== undefined)
        sellOut = ordered(
          reachesAt(q.low, finals.high, capacity, startsAtMs, period, now),
          likely,
          reachesAt(q.high, finals.low, capacity, startsAtMs, period, now),
        );
    }
    return {
      kind: 'forecast',
      method: 'booking-curve',
      learnedFrom: curves.length,
      sold,
      capacity,
      atStart,
      sellOut,
      pace,
    };
  }

  const perDay = pace.perDayLastWeek ?? (pace.perHourLastDay === undefined ? undefined : pace.perHourLastDay * 24);
  const rateNow = perDay ?? (Math.max(0, last.sold - first.sold) / (last.at - first.at)) * DAY;
  const daysLeft = (startsAtMs - now) / DAY;
  const at = (factor: number) => cap(sold + rateNow * factor * daysLeft);
  const atStart = { low: at(0.5), likely: at(1), high: at(2) };
  let sellOut: SellOut | undefined;
  if (capacity !== undefined && sold < capacity && rateNow > 0) {
    const when = (factor: number) => {
      const t = now + ((capacity - sold) / (rateNow * factor)) * DAY;
      return t < startsAtMs ? t : undefined;
    };
    const likely = when(1);
    if (likely !== undefined) sellOut = ordered(when(2), likely, when(0.5));
  }
  return { kind: 'forecast', method: 'recent-pace', learnedFrom: 0, sold, capacity, atStart, sellOut, pace };
}
