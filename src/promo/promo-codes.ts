import { findQuantityRow } from '../reports/report-figures.js';
import { isTicketingError } from '../ticketing/errors.js';
import { parseId } from '../ticketing/ids.js';
import type { EventReport } from '../ticketing/schemas.js';

/** A promo code as a person names it: its id (`promo_…`, with or without the prefix), or its code (`EARLYBIRD`). */
export type PromoRef = { id: string } | { code: string };

/** What a code may be: letters, digits, `_` and `-`, as promo codes are written. */
const CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Reads what a person typed for a promo code: an id if it is one, else a code, else the problem. */
export function parsePromoRef(text: string): PromoRef | { problem: string } {
  const value = text.trim();
  try {
    return { id: parseId('promo', value) };
  } catch (error) {
    // Something with an id's prefix or shape (`evt_…`, a broken `promo_…`) is a mistake, not a code.
    if (CODE.test(value) && !/^(evt|promo)_/i.test(value) && !/^[a-z]+_[0-9a-f]{8}-/i.test(value))
      return { code: value };
    return { problem: isTicketingError(error) ? error.message : 'That is neither a promo code nor its id' };
  }
}

/** Where an event's report may already be, and how one is fetched for this (within the report limit). */
export interface PromoCodeSources {
  /** A report at hand (a watch's last check, a recent report): no call. */
  reportAtHand(eventId: string): Promise<EventReport | undefined>;
  /**
   * Fetches the event's report, the person waiting their turn within the report limit; `fresh`:
   * from the service, even when a report of the event is cached (the one at hand missed the code).
   */
  fetchReport(eventId: string, options?: { fresh?: boolean }): Promise<EventReport>;
}

export type ResolvedPromo =
  | { kind: 'found'; id: string; code: string | undefined }
  /** The event's report names no such code (or names it without an id). */
  | { kind: 'not-named'; code: string };

/**
 * The id behind a promo code: the API lists no promo codes (spec 4.2 note 4), but an event's
 * report names them with their ids. A report at hand is read first; only without one is a report
 * fetched, and `onFetch` is told first so the person knows they wait for it.
 */
export async function resolvePromo(
  sources: PromoCodeSources,
  eventId: string,
  ref: PromoRef,
  onFetch: () => Promise<void>,
): Promise<ResolvedPromo> {
  if ('id' in ref) return { kind: 'found', id: ref.id, code: undefined };
  const named = (report: EventReport | undefined) => {
    const row = report ? findQuantityRow(report, ref.code) : undefined;
    return row?.id ? { kind: 'found' as const, id: parseId('promo', row.id), code: row.label } : undefined;
  };
  const atHand = await sources.reportAtHand(eventId).catch(() => undefined);
  const found = named(atHand);
  if (found) return found;
  await onFetch();
  // The report at hand did not name it: a cached copy of that report would not either.
  const fetched = await sources.fetchReport(eventId, { fresh: atHand !== undefined });
  return named(fetched) ?? { kind: 'not-named', code: ref.code };
}
