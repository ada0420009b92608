import type { EventReport } from '../ticketing/schemas.js';

/**
 * How a report whose body the spec does not give (4.2 note 2) is read, in one place for the
 * renderer and for watches: its top-level numbers are its figures, and a list of records is a
 * table. Two pairs are understood where a report names them: something sold of a capacity, and a
 * quantity of which some is redeemed (a promo code's).
 */

/** The report's top-level numbers, in the report's order (finite ones only). */
export function topFigures(report: EventReport): [string, number][] {
  return Object.entries(report).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
  );
}

export type ReportRow = Record<string, unknown>;

/** A non-empty list of records. */
export function isRowList(value: unknown): value is ReportRow[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))
  );
}

/** The report's tables: top-level lists of records. */
export function rowLists(report: EventReport): [string, ReportRow[]][] {
  return Object.entries(report).filter((entry): entry is [string, ReportRow[]] => isRowList(entry[1]));
}

/** `ticketsSold`, `tickets_sold`, `Tickets sold` → `ticketssold`: how a typed field name is matched. */
export const fieldKey = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The top-level figure named (any case, spaces or underscores), if the report has it. */
export function figureOf(report: EventReport, name: string): { field: string; value: number } | undefined {
  const wanted = fieldKey(name);
  const found = topFigures(report).find(([key]) => fieldKey(key) === wanted);
  return found ? { field: found[0], value: found[1] } : undefined;
}

/** A name that says "sold" but not "unsold" or "sold out" (so `soldCount` and `amountSold` count). */
const isSoldField = (key: string) => {
  const k = fieldKey(key);
  return k.includes('sold') && !k.includes('unsold') && !k.includes('soldout');
};

/** The first top-level figure whose name says sold, with or without a capacity. */
export function soldFigure(report: EventReport): { field: string; value: number } | undefined {
  const found = topFigures(report).find(([key]) => isSoldField(key));
  return found ? { field: found[0], value: found[1] } : undefined;
}

/** Sold of capacity at the top level: the first figure whose name says "sold", and `capacity`. */
export function soldOfCapacity(report: EventReport): { sold: number; capacity: number; soldField: string } | undefined {
  const figures = topFigures(report);
  const sold = figures.find(([key]) => isSoldField(key));
  const capacity = figures.find(([key]) => fieldKey(key) === 'capacity');
  if (!sold || !capacity || capacity[1] <= 0) return undefined;
  return { sold: sold[1], capacity: capacity[1], soldField: sold[0] };
}

const LABEL_KEYS = ['code', 'name', 'label', 'title', 'id'];

/** One row of a list that has a quantity and how much of it is redeemed: a promo code, as a report names it. */
export interface QuantityRow {
  /** The list it came from (`promos`). */
  list: string;
  /** What people call it: its code, else its name, else its id. */
  label: string;
  id: string | undefined;
  quantity: number;
  redeemed: number;
  left: number;
}

/** Every row, in every list, that has numeric `quantity` and `redeemed`. */
export function quantityRows(report: EventReport): QuantityRow[] {
  const rows: QuantityRow[] = [];
  for (const [list, records] of rowLists(report)) {
    for (const record of records) {
      const quantity = num(record.quantity);
      const redeemed = num(record.redeemed);
      if (quantity === undefined || redeemed === undefined) continue;
      const labelKey = LABEL_KEYS.find((key) => typeof record[key] === 'string' && (record[key] as string).length > 0);
      if (!labelKey) continue;
      rows.push({
        list,
        label: record[labelKey] as string,
        id: typeof record.id === 'string' ? record.id : undefined,
        quantity,
        redeemed,
        left: Math.max(0, quantity - redeemed),
      });
    }
  }
  return rows;
}

/** The row a person named, by its code or name (any case) or its id. */
export function findQuantityRow(report: EventReport, name: string): QuantityRow | undefined {
  const wanted = name.toLowerCase();
  return quantityRows(report).find((row) => row.label.toLowerCase() === wanted || row.id?.toLowerCase() === wanted);
}
