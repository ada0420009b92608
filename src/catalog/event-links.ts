import { parseId } from '../ticketing/ids.js';

/** The organization's public event page, as a template: `https://tickets.example.com/e/{id}`. */
export interface EventLinks {
  /** The page's host, as the manifest's `app_unfurl_domains` lists it. */
  readonly host: string;
  /** The event id a URL is the page of (with the `evt_` prefix), or undefined for any other URL. */
  eventIdIn(url: string): string | undefined;
  /** Every event page URL in a text, with its event id (Slack writes links as `<url|label>` or `<url>`). */
  linksIn(text: string): { url: string; eventId: string }[];
}

/** Why an EVENT_PAGE_URL template is unusable. */
export class EventLinkTemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventLinkTemplateError';
  }
}

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Reads an event page template: an http(s) URL with one `{id}` (the id with or without its `evt_`
 * prefix matches) or `{bareId}` (the id without it). Other paths on the host are not event pages.
 */
export function eventLinks(template: string): EventLinks {
  const placeholders = template.match(/\{(id|bareId)\}/g) ?? [];
  if (placeholders.length !== 1)
    throw new EventLinkTemplateError(
      'expected a URL with one {id} or {bareId}, such as https://tickets.example.com/e/{id}',
    );
  let parsed: URL;
  try {
    parsed = new URL(template.replace(/\{(id|bareId)\}/, 'x'));
  } catch {
    throw new EventLinkTemplateError('expected an http(s) URL with {id}, such as https://tickets.example.com/e/{id}');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new EventLinkTemplateError('expected an http(s) URL');
  if (parsed.username || parsed.password) throw new EventLinkTemplateError('expected a URL without credentials');
  const host = parsed.hostname.toLowerCase();
  const [before, after] = template.split(/\{(?:id|bareId)\}/) as [string, string];
  if (!before.replace(/^https?:\/\//i, '').includes('/')) {
    throw new EventLinkTemplateError('expected {id} in the path, not the host: https://tickets.example.com/e/{id}');
  }
  const id = placeholders[0] === '{id}' ? `((?:evt_)?${UUID})` : `(${UUID})`;
  // Scheme and host in any case; the rest as written; a trailing slash, query or fragment allowed.
  const body = `${escapeRegExp(before.replace(/^https?:\/\//i, ''))}${id}${escapeRegExp(after)}`;
  const exact = new RegExp(`^https?://${body}/?(?:[?#][^\\s]*)?$`, 'i');
  const anywhere = new RegExp(`https?://${body}(?=[/?#|>\\s]|$)[^\\s|>]*`, 'gi');
  const idOf = (match: RegExpMatchArray) => {
    try {
      return parseId('event', match[1] as string);
    } catch {
      return undefined;
    }
  };
  return {
    host,
    eventIdIn: (url) => {
      const match = url.trim().match(exact);
      return match ? idOf(match) : undefined;
    },
    linksIn: (text) => {
      const found: { url: string; eventId: string }[] = [];
      for (const match of text.matchAll(anywhere)) {
        const eventId = idOf(match);
        if (eventId && !found.some((f) => f.url === match[0])) found.push({ url: match[0], eventId });
      }
      return found;
    },
  };
}
