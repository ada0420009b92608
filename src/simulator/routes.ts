import type { CursorCodec } from './cursor.js';
import { normaliseId } from './normalise-id.js';
import type { SimCatalog, SimEvent, SimPromo } from './seed.js';

/** The spec's three endpoints (section 4.2). */
export type Route =
  | { kind: 'list' }
  | { kind: 'report'; eventId: string }
  | { kind: 'promo'; eventId: string; promoId: string };

/** A route with the method it accepts. */
export interface Routed {
  route: Route;
  method: 'GET' | 'POST';
}

/** What a handler answers: a status and a JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

/** The error body the service uses (the spec's 429 shape, reused for other statuses). */
export const errorBody = (status: number, code: string, message: string) => ({
  error: code,
  message,
  statusCode: status,
});

/** The route a path names, or undefined (404). */
export function resolveRoute(pathname: string): Routed | undefined {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const [version, events, eventId, sub, promoId, action] = segments;
  if (version !== 'v1' || events !== 'events') return undefined;
  if (segments.length === 2) return { route: { kind: 'list' }, method: 'GET' };
  if (segments.length === 4 && sub === 'report' && eventId) {
    return { route: { kind: 'report', eventId }, method: 'GET' };
  }
  if (segments.length === 6 && sub === 'promos' && action === 'update' && eventId && promoId) {
    return { route: { kind: 'promo', eventId, promoId }, method: 'POST' };
  }
  return undefined;
}

function publicEvent(event: SimEvent): Record<string, unknown> {
  const { startsAtMs: _sort, capacity: _capacity, ...rest } = event;
  return rest;
}

/** Where reports come from: the event's figures as they stand now. */
export interface ReportSource {
  report(event: SimEvent): unknown;
  /** Brings the event's moving figures up to now, before a change lands on them. */
  settle(event: SimEvent): void;
}

/** The handlers of the three endpoints over one seeded catalog. */
export function createHandlers(
  catalog: SimCatalog,
  cursors: CursorCodec,
  reports: ReportSource,
  /** The order `GET /v1/events` lists events in (the spec promises none). */
  listing: () => readonly SimEvent[] = () => catalog.events,
) {
  const eventsById = new Map(catalog.events.map((event) => [event.id, event]));
  const promosById = new Map(catalog.promos.map((promo) => [promo.id, promo]));

  function listEvents(url: URL): Answer {
    const limitText = url.searchParams.get('limit');
    let limit = 10;
    if (limitText !== null) {
      if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) {
        return { status: 400, body: errorBody(400, 'invalid_request', 'limit must be an integer from 1 to 100') };
      }
      limit = Number(limitText);
    }
    let start = 0;
    const cursor = url.searchParams.get('nextCursor');
    if (cursor !== null) {
      const after = cursors.decode(cursor);
      const index = after === undefined ? -1 : listing().findIndex((event) => event.id === after);
      if (index < 0) {
        return {
          status: 400,
          body: errorBody(400, 'invalid_cursor', 'nextCursor is not a cursor this service issued'),
        };
      }
      start = index + 1;
    }
    const listed = listing();
    const page = listed.slice(start, start + limit);
    const hasMore = start + limit < listed.length;
    const last = page.at(-1);
    return {
      status: 200,
      body: {
        data: page.map(publicEvent),
        pagination: { nextCursor: hasMore && last ? cursors.encode(last.id) : null, hasMore },
      },
    };
  }

  function updatePromo(promo: SimPromo, text: string): Answer {
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      return { status: 400, body: errorBody(400, 'invalid_request', 'The body is not valid JSON') };
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { status: 400, body: errorBody(400, 'invalid_request', 'The body must be a JSON object') };
    }
    const { quantity, code, active, discountPercent } = input as Record<string, unknown>;
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 0) {
      return { status: 400, body: errorBody(400, 'invalid_request', 'quantity must be a non-negative integer') };
    }
    if (code !== undefined && (typeof code !== 'string' || code.trim() === '')) {
      return { status: 400, body: errorBody(400, 'invalid_request', 'code must be a non-empty string') };
    }
    if (active !== undefined && typeof active !== 'boolean') {
      return { status: 400, body: errorBody(400, 'invalid_request', 'active must be a boolean') };
    }
    if (
      discountPercent !== undefined &&
      (typeof discountPercent !== 'number' || discountPercent < 0 || discountPercent > 100)
    ) {
      return { status: 400, body: errorBody(400, 'invalid_request', 'discountPercent must be a number from 0 to 100') };
    }
    // Only the fields passed change (spec 4.1 rule 2); validation came first, so nothing is half-applied.
    promo.quantity = quantity;
    if (typeof code === 'string') promo.code = code;
    if (typeof active === 'boolean') promo.active = active;
    if (typeof discountPercent === 'number') promo.discountPercent = discountPercent;
    return { status: 200, body: { ...promo } };
  }

  /** Does the route's work (a promo update changes the catalog) and says what to answer. */
  return function answer(route: Route, body: string, url: URL): Answer {
    if (route.kind === 'list') return listEvents(url);
    const eventId = normaliseId('evt', route.eventId);
    const event = eventId ? eventsById.get(eventId) : undefined;
    if (!event) return { status: 404, body: errorBody(404, 'not_found', `Event ${route.eventId} not found`) };
    if (route.kind === 'report') return { status: 200, body: reports.report(event) };
    const promoId = normaliseId('promo', route.promoId);
    const promo = promoId ? promosById.get(promoId) : undefined;
    if (!promo || promo.eventId !== event.id) {
      return { status: 404, body: errorBody(404, 'not_found', `Promo code ${route.promoId} not found on this event`) };
    }
    // Redemptions up to now count against the old quantity; the new one applies from now.
    reports.settle(event);
    return updatePromo(promo, body);
  };
}
