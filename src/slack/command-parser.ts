import { isTicketingError } from '../ticketing/errors.js';
import { parseId } from '../ticketing/ids.js';

/** Above this a quantity is taken for a typo rather than a plan. */
export const MAX_PROMO_QUANTITY = 1_000_000;

export const USAGE = {
  list: '/events list',
  show: '/events show <eventId>',
  report: '/events report <eventId>',
  promo: '/events promo <eventId> <promoId> <quantity>',
  digest: '/events digest on [HH:MM] [zone] [--days N] | off | status | now',
  help: '/events help',
} as const;

export type EventsCommand =
  | { kind: 'list' }
  | { kind: 'help' }
  | { kind: 'show'; eventId: string }
  | { kind: 'report'; eventId: string }
  | { kind: 'promo'; eventId: string; promoId: string; quantity: number }
  | { kind: 'digest'; args: string[] }
  | { kind: 'invalid'; problem: string; usage: string };

function invalid(problem: string, usage: string): EventsCommand {
  return { kind: 'invalid', problem, usage };
}

function shown(text: string): string {
  const short = text.length > 40 ? `${text.slice(0, 37)}...` : text;
  return `"${short}"`;
}

/** Reads the text after `/events`; never throws, never calls anything. */
export function parseEventsCommand(text: string): EventsCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [sub = 'list', ...args] = words;
  const id = (kind: 'event' | 'promo', value: string | undefined, usage: string) => {
    if (value === undefined) return invalid(`Missing the ${kind === 'event' ? 'event' : 'promo code'} id.`, usage);
    try {
      return parseId(kind, value);
    } catch (error) {
      return invalid(isTicketingError(error) ? `${error.message}.` : 'That id is not valid.', usage);
    }
  };
  switch (sub.toLowerCase()) {
    case 'list':
    case 'upcoming':
      return args.length === 0 ? { kind: 'list' } : invalid('`list` takes no arguments.', USAGE.list);
    case 'help':
      return { kind: 'help' };
    case 'show':
    case 'report': {
      const usage = sub.toLowerCase() === 'show' ? USAGE.show : USAGE.report;
      if (args.length > 1) return invalid(`\`${sub.toLowerCase()}\` takes one event id.`, usage);
      const eventId = id('event', args[0], usage);
      if (typeof eventId !== 'string') return eventId;
      return sub.toLowerCase() === 'show' ? { kind: 'show', eventId } : { kind: 'report', eventId };
    }
    case 'promo': {
      if (args.length !== 3) return invalid('`promo` takes an event id, a promo code id and a quantity.', USAGE.promo);
      const eventId = id('event', args[0], USAGE.promo);
      if (typeof eventId !== 'string') return eventId;
      const promoId = id('promo', args[1], USAGE.promo);
      if (typeof promoId !== 'string') return promoId;
      const raw = args[2] as string;
      if (!/^[+-]?\d+([.,]\d+)?$/.test(raw.replaceAll(/[_\s]/g, ''))) {
        return invalid(`The quantity ${shown(raw)} is not a number.`, USAGE.promo);
      }
      const quantity = Number(raw.replace(',', '.'));
      if (quantity < 0) return invalid(`The quantity cannot be negative (got ${shown(raw)}).`, USAGE.promo);
      if (!Number.isInteger(quantity))
        return invalid(`The quantity must be a whole number (got ${shown(raw)}).`, USAGE.promo);
      if (quantity > MAX_PROMO_QUANTITY) {
        return invalid(
          `The quantity ${shown(raw)} is too large (at most ${MAX_PROMO_QUANTITY.toLocaleString('en-US')}).`,
          USAGE.promo,
        );
      }
      return { kind: 'promo', eventId, promoId, quantity };
    }
    case 'digest':
      return { kind: 'digest', args };
    default:
      return invalid(`Unknown subcommand ${shown(sub)}.`, '/events [list | show | report | promo | digest | help]');
  }
}
