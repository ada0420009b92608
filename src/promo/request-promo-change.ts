import type { EventCatalog } from '../catalog/event-catalog.js';
import { type EventTarget, type Resolved, resolveEvent } from '../catalog/find-events.js';
import { isCancelled } from '../catalog/is-upcoming.js';
import type { Reports } from '../reports/reports.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { KnownPromoCodes } from './known-promo-codes.js';
import { type PromoDeps, type ProposeResult, proposePromoChange } from './promo-changes.js';
import { type CodeLeftOut, promoCodeLeftOut } from './promo-code-left-out.js';
import { closeKnownCodes, type PromoCodeSources, type PromoRef, resolvePromo } from './promo-codes.js';

/** A person's promo change request, from any front end (`/events promo`, the form, an MCP tool). */
export interface PromoRequest {
  userId: string;
  /** Where the confirmation is answered (a channel, or the person's own id for a DM). */
  channelId: string;
  /** The event by id or by words of its name. */
  target: EventTarget;
  promo: PromoRef;
  quantity: number;
}

/** What came of a promo request: a change proposed for the person to confirm, or why none was. */
export type PromoRequestOutcome =
  | { kind: 'not-editor' }
  /** The catalog could not be read. */
  | { kind: 'lookup-failed'; error: unknown }
  | ({ kind: 'code-left-out' } & CodeLeftOut)
  | Extract<Resolved, { kind: 'none' | 'choices' }>
  | { kind: 'cancelled'; event: TicketingEvent }
  /** A code close to some known for the event (EARLYBRD): asked at once, not looked up in a report. */
  | { kind: 'code-did-you-mean'; event: TicketingEvent; close: string[] }
  /** No report names such a code with an id; `known`: the codes that are known. */
  | { kind: 'code-not-named'; code: string; known: string[] }
  | { kind: 'code-lookup-failed'; error: unknown }
  | { kind: 'proposed'; eventId: string; result: ProposeResult };

/**
 * Where an event's promo codes are read for `userId`: the latest report at hand (a watch's last
 * check, a cache), the pairs remembered from earlier reports, or a report fetched for this in the
 * person's turn within the report limit (with replicas, in the shared queue, whichever replica
 * fetches it).
 */
export function promoCodeSources(
  reports: Pick<Reports<unknown>, 'atHand' | 'fetchFor'>,
  known: KnownPromoCodes | undefined,
  userId: string,
): PromoCodeSources {
  return {
    known,
    reportAtHand: async (eventId) => (await reports.atHand(eventId))?.report,
    fetchReport: (eventId, options) => reports.fetchFor(eventId, userId, options),
  };
}

/**
 * A promo change asked for by a person: the event as `show` finds it (one match goes on; several
 * are a choice; none says so), then the code's id (a report fetched for it tells `onFetch` first),
 * then `proposePromoChange`, which stores the change for the person's one confirmation. Nothing is
 * written here: every front end gets the same outcome and shows it.
 */
export async function requestPromoChange(
  deps: PromoDeps & { catalog: EventCatalog; sources: PromoCodeSources },
  request: PromoRequest,
  onFetch: () => Promise<void> = async () => {},
): Promise<PromoRequestOutcome> {
  // Before anything is looked up (a code may cost a report call); the proposal checks again.
  if (!(await deps.isEditor(request.userId))) return { kind: 'not-editor' };
  let resolved: Resolved;
  try {
    resolved = await resolveEvent(deps.catalog, request.target, deps.interactive());
  } catch (error) {
    deps.logger.info('Finding the event of a promo change failed', { error });
    return { kind: 'lookup-failed', error };
  }
  const leftOut = await promoCodeLeftOut({ ...deps, read: deps.interactive() }, request, resolved);
  if (leftOut) return { kind: 'code-left-out', ...leftOut };
  if (resolved.kind !== 'found') return resolved;
  const { event } = resolved;
  if (isCancelled(event)) return { kind: 'cancelled', event };
  const close = await closeKnownCodes(deps.sources, event.id, request.promo);
  if ('code' in request.promo && close.length > 0) return { kind: 'code-did-you-mean', event, close };
  let found: Awaited<ReturnType<typeof resolvePromo>>;
  try {
    found = await resolvePromo(deps.sources, event.id, request.promo, onFetch);
  } catch (error) {
    deps.logger.info('Looking up a promo code failed', { error });
    return { kind: 'code-lookup-failed', error };
  }
  if (found.kind !== 'found') return { kind: 'code-not-named', code: found.code, known: found.known };
  const result = await proposePromoChange(deps, {
    userId: request.userId,
    channelId: request.channelId,
    eventId: event.id,
    promoId: found.id,
    quantity: request.quantity,
    code: found.code,
    previousQuantity: found.previousQuantity,
    redeemed: found.redeemed,
  });
  return { kind: 'proposed', eventId: event.id, result };
}
