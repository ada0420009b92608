import type { KeyValueStore } from '../store/key-value-store.js';
import { normaliseApiId } from '../ticketing/ids.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import type { FetchReport } from './report-reads.js';

/** A report read earlier, and when its call went out, with every write made since applied. */
export interface ReportRead {
  report: EventReport;
  readAt: number;
}

/** A promo code's quantity as it is known now, and when that was learned (a report's call, or a write). */
export interface KnownQuantity {
  quantity: number;
  at: number;
}

/** What is stored: the last report read, and the promo quantities written after that read went out. */
interface StoredRecord {
  report: EventReport;
  readAt: number;
  /** Normalised promo id → the quantity written and when its write was answered. */
  written: Record<string, KnownQuantity>;
}

/**
 * What is known about an event now, in one place for every replica (the store: Redis with
 * replicas, SQLite alone): its last report read (sold, capacity, each promo code's quantity and
 * redeemed, everything a report says) and when, with each promo quantity written since applied.
 * Every report read and every promo write updates it; confirmations, results, cards, the flexpane
 * and every report handed out read it, so none keeps a copy that a write leaves behind.
 */
export interface EventRecords {
  /** `fetch`, whose every report is recorded (as read when its call went out) before its caller has it. */
  reading(fetch: FetchReport): FetchReport;
  /** A promo quantity the service confirmed writing, known at once on every replica. */
  wrote(eventId: string, promoId: string, quantity: number): Promise<void>;
  /** The event's record: its last report with the writes since applied; undefined when none was read. */
  get(eventId: string): Promise<ReportRead | undefined>;
  /** `report` (read no later than the record's) with the quantities written since applied. */
  current(eventId: string, report: EventReport): Promise<EventReport>;
  /** A promo code's quantity as known now, and when. */
  quantity(eventId: string, promoId: string): Promise<KnownQuantity | undefined>;
}

/** How long a record outlives its last update: a report older than this is nobody's "now". */
const RECORD_TTL_MS = 2 * 24 * 3_600_000;

const key = (eventId: string) => `event-record:${normaliseApiId('event', eventId)}`;
const promoKey = (promoId: string) => normaliseApiId('promo', promoId);

/** The report with each written quantity in place of the one it names (a row's `left` follows from it). */
function withWrites(report: EventReport, written: Record<string, KnownQuantity>): EventReport {
  if (Object.keys(written).length === 0) return report;
  const out: EventReport = { ...report };
  for (const [field, value] of Object.entries(report)) {
    if (!Array.isArray(value)) continue;
    out[field] = value.map((row: unknown) => {
      if (typeof row !== 'object' || row === null || Array.isArray(row)) return row;
      const id = (row as { id?: unknown }).id;
      if (typeof id !== 'string' || typeof (row as { quantity?: unknown }).quantity !== 'number') return row;
      const write = written[promoKey(id)];
      return write ? { ...row, quantity: write.quantity } : row;
    });
  }
  return out;
}

function parsed(value: unknown): StoredRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Partial<StoredRecord>;
  if (typeof record.readAt !== 'number' || typeof record.report !== 'object' || record.report === null)
    return undefined;
  return { report: record.report, readAt: record.readAt, written: record.written ?? {} };
}

/** The event records over the store (shared by replicas when the store is). */
export function storeEventRecords(store: KeyValueStore, clock: Clock): EventRecords {
  const change = (eventId: string, next: (current: StoredRecord | undefined) => StoredRecord | undefined) =>
    store.exclusive(key(eventId), async () => {
      const updated = next(parsed(await store.get<unknown>(key(eventId))));
      if (updated) await store.set(key(eventId), updated, RECORD_TTL_MS);
    });
  const read = async (eventId: string, report: EventReport, readAt: number) =>
    change(eventId, (current) => {
      // An older read answered late changes nothing known since.
      if (current && current.readAt > readAt) return undefined;
      // A write answered before this read went out is in its report; a later one may not be.
      const written = Object.fromEntries(Object.entries(current?.written ?? {}).filter(([, w]) => w.at >= readAt));
      return { report, readAt, written };
    });
  const get = async (eventId: string) => parsed(await store.get<unknown>(key(eventId)));
  return {
    reading: (fetch) => async (eventId, options) => {
      const readAt = clock.now();
      const report = await fetch(eventId, options);
      // What could not be recorded is still the caller's report; the record catches up at the next read.
      await read(eventId, report, readAt).catch(() => undefined);
      return report;
    },
    wrote: (eventId, promoId, quantity) =>
      change(eventId, (current) =>
        current
          ? { ...current, written: { ...current.written, [promoKey(promoId)]: { quantity, at: clock.now() } } }
          : undefined,
      ),
    get: async (eventId) => {
      const record = await get(eventId);
      return record && { report: withWrites(record.report, record.written), readAt: record.readAt };
    },
    current: async (eventId, report) => {
      const record = await get(eventId).catch(() => undefined);
      return record ? withWrites(report, record.written) : report;
    },
    quantity: async (eventId, promoId) => {
      const record = await get(eventId);
      if (!record) return undefined;
      const id = promoKey(promoId);
      const written = record.written[id];
      if (written) return written;
      for (const value of Object.values(record.report)) {
        if (!Array.isArray(value)) continue;
        for (const row of value as unknown[]) {
          const r = row as { id?: unknown; quantity?: unknown } | null;
          if (r && typeof r.id === 'string' && typeof r.quantity === 'number' && promoKey(r.id) === id)
            return { quantity: r.quantity, at: record.readAt };
        }
      }
      return undefined;
    },
  };
}
