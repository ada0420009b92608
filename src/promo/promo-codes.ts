import { didYouMean } from '../catalog/did-you-mean.js';
import { findQuantityRow, quantityRows } from '../reports/report-figures.js';
import { isTicketingError } from '../ticketing/errors.js';
import { normaliseApiId, parseId } from '../ticketing/ids.js';
import type { EventReport } from '../ticketing/schemas.js';

/** A promo code as a person names it: its id (`promo_…`, with or without the prefix), or its code (`EARLYBIRD`). */
export type PromoRef = { id: string } | { code: string };

/** What a code may be: letters, digits, `_` and `-`, as promo codes are written. */
const CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Whether a report's label is a code a person could type (not a name with spaces, not an id). */
export const isPromoCode = (label: string): boolean => CODE.test(label) && 'code' in parsePromoRef(label);

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
  /** Code → id pairs remembered from earlier reports: no call. */
  known?:
    | {
        idOf(eventId: string, code: string): Promise<{ code: string; id: string } | undefined>;
        codeOf(eventId: string, promoId: string): Promise<string | undefined>;
        codes(eventId: string): Promise<readonly { code: string }[]>;
      }
    | undefined;
  /** A report at hand (a watch's last check, a recent report): no call. */
  reportAtHand(eventId: string): Promise<EventReport | undefined>;
  /**
   * Fetches the event's report, the person waiting their turn within the report limit; `fresh`:
   * from the service, even when a report of the event is cached (the one at hand missed the code).
   */
  fetchReport(eventId: string, options?: { fresh?: boolean }): Promise<EventReport>;
}

export type ResolvedPromo =
  | {
      kind: 'found';
      id: string;
      /** The code people know, when a report (now or earlier) named it. */
      code: string | undefined;
      /** Its quantity as a report read now (at hand, or fetched for this) names it. */
      previousQuantity: number | undefined;
      /** How often it was redeemed, as the same report names it. */
      redeemed?: number | undefined;
    }
  /** No report names such a code with an id: `known` lists the codes that are known for the event. */
  | { kind: 'not-named'; code: string; known: string[] };

/**
 * The id behind a promo code: the API lists no promo codes (spec 4.2 note 4), but an event's
 * report names them with their ids. The report at hand is read first, then the pairs remembered
 * from earlier reports (a code's id does not change); only without either is a report fetched,
 * and `onFetch` is told first so the person knows they wait for it.
 */
export async function resolvePromo(
  sources: PromoCodeSources,
  eventId: string,
  ref: PromoRef,
  onFetch: () => Promise<void>,
  /** Read a report for its quantity now and redemptions when none at hand names them (a person confirms). @default true */
  figures = true,
): Promise<ResolvedPromo> {
  const atHand = await sources.reportAtHand(eventId).catch(() => undefined);
  const remembered = async <T>(read: () => Promise<T> | undefined) => {
    try {
      return await read();
    } catch {
      return undefined;
    }
  };
  let fetched: EventReport | undefined;
  // Its quantity now and how often it was redeemed, for the person to see before they confirm (a
  // quantity below what is redeemed is warned of): from the report at hand, else one read now.
  const withFigures = async (found: Extract<ResolvedPromo, { kind: 'found' }>): Promise<ResolvedPromo> => {
    if (found.previousQuantity !== undefined || !figures) return found;
    if (!fetched) {
      await onFetch();
      fetched = await sources.fetchReport(eventId, { fresh: atHand !== undefined });
    }
    // A code remembered with an id the report no longer has (the code was recreated): the
    // report read now names its id, and that is the one changed.
    const byCode = 'code' in ref ? findQuantityRow(fetched, ref.code) : undefined;
    const row = rowWithId(fetched, found.id) ?? (byCode?.id ? byCode : undefined);
    return {
      ...found,
      id: row?.id ? normaliseApiId('promo', row.id) : found.id,
      code: found.code ?? row?.label,
      previousQuantity: row?.quantity,
      redeemed: row?.redeemed,
    };
  };
  if ('id' in ref) {
    const row = atHand ? rowWithId(atHand, ref.id) : undefined;
    const code = row?.label ?? (await remembered(() => sources.known?.codeOf(eventId, ref.id)));
    return withFigures({ kind: 'found', id: ref.id, code, previousQuantity: row?.quantity, redeemed: row?.redeemed });
  }
  const named = (report: EventReport | undefined) => {
    const row = report ? findQuantityRow(report, ref.code) : undefined;
    return row?.id
      ? {
          kind: 'found' as const,
          id: normaliseApiId('promo', row.id),
          code: row.label,
          previousQuantity: row.quantity,
          redeemed: row.redeemed,
        }
      : undefined;
  };
  const found = named(atHand);
  if (found) return found;
  const known = await remembered(() => sources.known?.idOf(eventId, ref.code));
  if (known) {
    const row = atHand ? rowWithId(atHand, known.id) : undefined;
    return withFigures({
      kind: 'found',
      id: known.id,
      code: known.code,
      previousQuantity: row?.quantity,
      redeemed: row?.redeemed,
    });
  }
  await onFetch();
  // The report at hand did not name it: a cached copy of that report would not either.
  fetched = await sources.fetchReport(eventId, { fresh: atHand !== undefined });
  const inFetched = named(fetched);
  if (inFetched) return inFetched;
  const codes = new Map<string, string>();
  const rememberedCodes = (await remembered(() => sources.known?.codes(eventId))) ?? [];
  for (const code of [...quantityRows(fetched).map((row) => row.label), ...rememberedCodes.map((each) => each.code)])
    if (isPromoCode(code) && !codes.has(code.toLowerCase())) codes.set(code.toLowerCase(), code);
  return { kind: 'not-named', code: ref.code, known: [...codes.values()] };
}

/**
 * The codes known for the event that a code typed was likely meant to be (`EARLYBRD` for
 * `EARLYBIRD`), when no report at hand and no remembered code is that code: a "did you mean"
 * answered with no report call. Only codes a report named with an id (at hand, or remembered from
 * earlier reports), and only those with the same digits (`SUMMER26` is another code than
 * `SUMMER25`, not a typo of it). Empty for an id, for a code that is known (any case) or near
 * none; never throws (what cannot be read offers nothing, and the lookup goes on as before).
 */
export async function closeKnownCodes(
  sources: Pick<PromoCodeSources, 'known' | 'reportAtHand'>,
  eventId: string,
  ref: PromoRef,
): Promise<string[]> {
  if (!('code' in ref)) return [];
  const atHand = await sources.reportAtHand(eventId).catch(() => undefined);
  if (atHand && findQuantityRow(atHand, ref.code)) return [];
  const codes = await codesKnown(sources, eventId, atHand);
  const digits = (text: string) => text.replace(/\D/g, '');
  return didYouMean(
    ref.code,
    codes.filter((each) => digits(each) === digits(ref.code)),
  );
}

/** The report's row for a promo id (ids compared as the API's opaque ids, prefix or not). */
function rowWithId(report: EventReport, promoId: string) {
  const id = normaliseApiId('promo', promoId);
  return quantityRows(report).find((row) => row.id !== undefined && normaliseApiId('promo', row.id) === id);
}

/** The codes known for an event without a report call: in the report at hand, or remembered from earlier ones. */
export async function knownCodes(
  sources: Pick<PromoCodeSources, 'known' | 'reportAtHand'>,
  eventId: string,
): Promise<string[]> {
  return codesKnown(sources, eventId, await sources.reportAtHand(eventId).catch(() => undefined));
}

async function codesKnown(
  sources: Pick<PromoCodeSources, 'known'>,
  eventId: string,
  atHand: EventReport | undefined,
): Promise<string[]> {
  const remembered = await Promise.resolve()
    .then(() => sources.known?.codes(eventId))
    .catch(() => undefined);
  const codes = [
    ...(atHand ? quantityRows(atHand).flatMap((row) => (row.id === undefined ? [] : [row.label])) : []),
    ...(remembered ?? []).map((each) => each.code),
  ].filter(isPromoCode);
  return [...new Set(codes)];
}
