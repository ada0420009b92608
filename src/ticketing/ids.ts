import { ValidationError } from './errors.js';

/** Id prefixes by resource (Event Ticketing API spec, section 2.1). */
export const ID_PREFIXES = {
  organization: 'org',
  event: 'evt',
  ticket: 'tkt',
  ticketCategory: 'tcat',
  promo: 'promo',
  trackingLink: 'trk',
} as const;

export type ResourceKind = keyof typeof ID_PREFIXES;

const RESOURCE_NAMES: Record<ResourceKind, string> = {
  organization: 'organization',
  event: 'event',
  ticket: 'ticket',
  ticketCategory: 'ticket category',
  promo: 'promo code',
  trackingLink: 'tracking link',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIXED = /^([a-z]+)_(.+)$/i;

function kindOfPrefix(prefix: string): ResourceKind | undefined {
  const lower = prefix.toLowerCase();
  return (Object.keys(ID_PREFIXES) as ResourceKind[]).find((kind) => ID_PREFIXES[kind] === lower);
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Normalises a user- or API-supplied id to its prefixed form (`evt_<uuid>`). Accepts the id with
 * or without its prefix (spec 2.1 rule 1); rejects a malformed id or another resource's prefix
 * with a `ValidationError`, so a bad id never reaches the network.
 */
export function parseId(kind: ResourceKind, input: string): string {
  const name = RESOURCE_NAMES[kind];
  const expected = `${ID_PREFIXES[kind]}_<uuid>`;
  const text = input.trim();
  if (UUID.test(text)) return `${ID_PREFIXES[kind]}_${text.toLowerCase()}`;
  const match = PREFIXED.exec(text);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    const prefixKind = kindOfPrefix(match[1]);
    if (prefixKind !== undefined && prefixKind !== kind) {
      throw new ValidationError(
        `"${shorten(text)}" is a ${RESOURCE_NAMES[prefixKind]} id, not a ${name} id (expected ${expected})`,
      );
    }
    if (prefixKind === kind && UUID.test(match[2])) return `${ID_PREFIXES[kind]}_${match[2].toLowerCase()}`;
  }
  throw new ValidationError(`"${shorten(text)}" is not a valid ${name} id (expected ${expected} or a bare uuid)`);
}

/** Like `parseId`, but answers `undefined` instead of throwing. */
export function tryParseId(kind: ResourceKind, input: string): string | undefined {
  try {
    return parseId(kind, input);
  } catch {
    return undefined;
  }
}

/**
 * Ids that come back from the API are opaque (spec 2.1 rule 2): a bare uuid gets its prefix so
 * both forms compare equal; anything else is kept exactly as sent.
 */
export function normaliseApiId(kind: ResourceKind, id: string): string {
  return tryParseId(kind, id) ?? id;
}

/** An id placed in a URL path, encoded so that no id can change the path. */
export function idPathSegment(id: string): string {
  return encodeURIComponent(id);
}
