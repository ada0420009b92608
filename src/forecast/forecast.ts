import { bookingCurveForecast } from './booking-curve-forecast.js';
import type { Forecast, ForecastInput, ForecastOptions } from './forecast-types.js';
import { learnedForecast } from './learned-forecast.js';
import { pooledForecast } from './pooled-forecast.js';

export { bookingCurve } from './booking-curve.js';
export type {
  FinishedEvent,
  Forecast,
  ForecastInput,
  ForecastOptions,
  Pace,
  Range,
  SellOut,
} from './forecast-types.js';
export { paceOf } from './pace-of.js';
export { soldAt } from './sold-at.js';

/**
 * Pace and sell-out forecasts: pure, history and events in, numbers out; no I/O and no clock of
 * its own (`now` is given).
 *
 * With at least `minSimilar` finished events of the organization like this one (by capacity and
 * selling-period length), the forecaster learns which method to trust (`learned-forecast.ts`):
 * additive pickup (`pickup.ts`), aligned by share of the selling period and by time before the
 * start, and the recent pace, each backtested on those finished events at the same point of their
 * sale (`backtest.ts`) and blended by how well they did, drawn towards a pooled prior; the range is
 * an 80% interval from the backtest's residuals (`interval.ts`). A history whose first point
 * already shows tickets sold is not read as a sale starting at zero. With fewer similar ones but at
 * least `minSimilar` finished events of any size and period, the same learned from all of them
 * (issue 45). Otherwise (fewer finished events) the recent pace
 * (`booking-curve-forecast.ts`, which also keeps the booking-curve method this replaced) with an
 * 80% interval from a pooled prior: how far the recent pace missed across many organizations
 * (`pooled-forecast.ts`), wide and skewed upwards.
 */

/** The pace, the projected sold at the start and the sell-out time, by the best method the history allows. */
export function forecast(input: ForecastInput, options: ForecastOptions = {}): Forecast {
  const legacy = bookingCurveForecast(input, options);
  if (legacy.kind === 'none') return legacy;
  const learned = learnedForecast(input, options);
  if (learned) return learned;
  // Too few similar ones (issue 45): learned from all the finished events, whatever their size and
  // selling period, in shares. The recent pace missed a late surge by half the capacity here.
  const unlike = learnedForecast(input, options, 'all');
  if (unlike) return unlike;
  // Too few finished events to backtest on: the recent pace, with the pooled prior's range.
  const pace = legacy.method === 'recent-pace' ? legacy : bookingCurveForecast({ ...input, finished: [] }, options);
  return pace.kind === 'forecast' ? pooledForecast(input, pace) : legacy;
}
