import { figureOf, quantityRows, soldFigure } from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';

/** What one report read says of an event's sales, at the time its call went out. */
export interface SalesPoint {
  at: number;
  sold: number;
  capacity?: number | undefined;
  gross?: number | undefined;
  net?: number | undefined;
  /** Each promo code's redeemed count, by the code people know. */
  promos?: Record<string, number> | undefined;
}

/** Most promo codes a point keeps (a report listing hundreds keeps its first). */
const MAX_PROMOS = 20;

/**
 * The figures of a report as a point of its event's sales history, read as the report renderer
 * and watches read them (`reports/report-figures.ts`); undefined when it has no sold figure.
 */
export function salesPointOf(report: EventReport, at: number): SalesPoint | undefined {
  const sold = soldFigure(report)?.value;
  if (sold === undefined) return undefined;
  const point: SalesPoint = { at, sold };
  const capacity = figureOf(report, 'capacity')?.value;
  if (capacity !== undefined && capacity > 0) point.capacity = capacity;
  const gross = figureOf(report, 'grossRevenue')?.value ?? figureOf(report, 'revenue')?.value;
  if (gross !== undefined) point.gross = gross;
  const net = figureOf(report, 'netRevenue')?.value;
  if (net !== undefined) point.net = net;
  const promos = quantityRows(report).slice(0, MAX_PROMOS);
  if (promos.length > 0) point.promos = Object.fromEntries(promos.map((row) => [row.label, row.redeemed]));
  return point;
}

/** Whether two points say the same of an event's sales (whenever each was read). */
export function sameFigures(a: SalesPoint, b: SalesPoint): boolean {
  const promos = (point: SalesPoint) =>
    JSON.stringify(Object.entries(point.promos ?? {}).sort(([x], [y]) => x.localeCompare(y)));
  return (
    a.sold === b.sold && a.capacity === b.capacity && a.gross === b.gross && a.net === b.net && promos(a) === promos(b)
  );
}
