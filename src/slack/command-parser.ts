import { clip, type Mrkdwn, md } from '../render/mrkdwn.js';
import { isTicketingError } from '../ticketing/errors.js';
import { parseId } from '../ticketing/ids.js';
import { parsePromoQuantity } from '../ticketing/promo-quantity.js';

export const USAGE = {
  list: md`/events list`,
  show: md`/events show <eventId>`,
  report: md`/events report <eventId>`,
  promo: md`/events promo <eventId> <promoId> <quantity>`,
  digest: md`/events digest on [HH:MM] [zone] [--days N] [--skip-empty] | off | status | now`,
  help: md`/events help`,
} as const;

export type EventsCommand =
  | { kind: 'list' }
  | { kind: 'help' }
  | { kind: 'show'; eventId: string }
  | { kind: 'report'; eventId: string }
  | { kind: 'promo'; eventId: string; promoId: string; quantity: number }
  | { kind: 'digest'; args: string[] }
  | { kind: 'invalid'; problem: Mrkdwn; usage: Mrkdwn };

function invalid(problem: Mrkdwn, usage: Mrkdwn): EventsCommand {
  return { kind: 'invalid', problem, usage };
}

/** What the person typed, quoted and shortened. */
function shown(text: string): Mrkdwn {
  return md`"${clip(text, 40)}"`;
}

/** Reads the text after `/events`; never throws, never calls anything. */
export function parseEventsCommand(text: string): EventsCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [sub = 'list', ...args] = words;
  const id = (kind: 'event' | 'promo', value: string | undefined, usage: Mrkdwn) => {
    if (value === undefined)
      return invalid(kind === 'event' ? md`Missing the event id.` : md`Missing the promo code id.`, usage);
    try {
      return parseId(kind, value);
    } catch (error) {
      return invalid(isTicketingError(error) ? md`${clip(error.message, 200)}.` : md`That id is not valid.`, usage);
    }
  };
  switch (sub.toLowerCase()) {
    case 'list':
    case 'upcoming':
      return args.length === 0 ? { kind: 'list' } : invalid(md`\`list\` takes no arguments.`, USAGE.list);
    case 'help':
      return { kind: 'help' };
    case 'show':
      if (args.length > 1) return invalid(md`\`show\` takes one event id.`, USAGE.show);
      return withId(id('event', args[0], USAGE.show), (eventId) => ({ kind: 'show', eventId }));
    case 'report':
      if (args.length > 1) return invalid(md`\`report\` takes one event id.`, USAGE.report);
      return withId(id('event', args[0], USAGE.report), (eventId) => ({ kind: 'report', eventId }));
    case 'promo': {
      if (args.length !== 3)
        return invalid(md`\`promo\` takes an event id, a promo code id and a quantity.`, USAGE.promo);
      const eventId = id('event', args[0], USAGE.promo);
      if (typeof eventId !== 'string') return eventId;
      const promoId = id('promo', args[1], USAGE.promo);
      if (typeof promoId !== 'string') return promoId;
      const raw = args[2] as string;
      const quantity = parsePromoQuantity(raw);
      if ('problem' in quantity) return invalid(md`${clip(quantity.problem, 300)} (got ${shown(raw)})`, USAGE.promo);
      return { kind: 'promo', eventId, promoId, quantity: quantity.quantity };
    }
    case 'digest':
      return { kind: 'digest', args };
    default:
      return invalid(md`Unknown subcommand ${shown(sub)}.`, md`/events [list | show | report | promo | digest | help]`);
  }
}

function withId(parsed: string | EventsCommand, build: (id: string) => EventsCommand): EventsCommand {
  return typeof parsed === 'string' ? build(parsed) : parsed;
}
