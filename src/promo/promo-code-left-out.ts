import type { EventCatalog, ReadOptions } from '../catalog/event-catalog.js';
import { searchWords } from '../catalog/event-search.js';
import { type EventTarget, type Resolved, resolveEvent } from '../catalog/find-events.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import { knownCodes, type PromoCodeSources, type PromoRef } from './promo-codes.js';

/**
 * Whether `words` are words of `name` in a row, the code as the next one: the search forgives
 * order, prefixes and typos, so "Clock Party CLOCK" finds "Clock Party" too, though CLOCK is a
 * code typed after the whole name.
 */
function continuesName(name: string, words: string): boolean {
  const whole = searchWords(name);
  const typed = searchWords(words);
  if (typed.length === 0) return false;
  for (let start = 0; start + typed.length <= whole.length; start += 1)
    if (typed.every((word, i) => whole[start + i] === word)) return true;
  return false;
}

/** The code was left out of a promo request: the event its words name, and the codes known for it. */
export interface CodeLeftOut {
  event: TicketingEvent;
  /** The event's words as typed, the supposed code with them. */
  words: string;
  codes: string[];
}

/**
 * `/events promo Winter Gala 10` parses as the event "Winter" and the code "Gala". When that code
 * is known for none of the events the words match, but the words with it are words of one event's
 * name in a row, the code was left out: the event and the codes known without a report call.
 * Undefined otherwise (the request goes on as typed).
 */
export async function promoCodeLeftOut(
  deps: { catalog: EventCatalog; sources: Pick<PromoCodeSources, 'known' | 'reportAtHand'>; read: ReadOptions },
  request: { target: EventTarget; promo: PromoRef },
  resolved: Resolved,
): Promise<CodeLeftOut | undefined> {
  const { target, promo } = request;
  if (!('words' in target) || !('code' in promo)) return undefined;
  const typed = promo.code.toUpperCase();
  const matching = resolved.kind === 'found' ? [resolved.event] : resolved.kind === 'choices' ? resolved.events : [];
  for (const event of matching) {
    if ((await knownCodes(deps.sources, event.id)).some((each) => each.toUpperCase() === typed)) return undefined;
  }
  const words = `${target.words} ${promo.code}`;
  const whole = await resolveEvent(deps.catalog, { words }, deps.read).catch(() => undefined);
  if (whole?.kind !== 'found' || !continuesName(whole.event.name ?? '', words)) return undefined;
  return { event: whole.event, words, codes: await knownCodes(deps.sources, whole.event.id) };
}
