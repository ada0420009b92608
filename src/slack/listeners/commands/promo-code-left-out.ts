import { searchWords } from '../../../catalog/event-search.js';
import { type EventTarget, type Resolved, resolveEvent } from '../../../catalog/find-events.js';
import { shownOrNone } from '../../../figures/may-show-figures.js';
import { knownCodes, type PromoRef } from '../../../promo/promo-codes.js';
import type { SlackMessage } from '../../../render/block-kit.js';
import { eventLabel } from '../../../render/event-blocks.js';
import { missingCodeMessage } from '../../../render/missing-code-blocks.js';
import { promoCodeSources } from '../../adapters/promo-context.js';
import { privateReader } from '../../deps/figures-reader.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { commandFor } from './command-parser.js';

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

/**
 * `/events promo Winter Gala 10` parses as the event "Winter" and the code "Gala". When that code
 * is known for none of the events the words match, but the words with it are words of one event's
 * name in a row, the code was left out: the answer asks which, from the codes known without a report call. Undefined
 * otherwise (the request goes on as typed).
 */
export async function promoCodeLeftOut(
  deps: SlackDeps,
  request: { userId: string; target: EventTarget; promo: PromoRef; quantity: number },
  resolved: Resolved,
): Promise<SlackMessage | undefined> {
  const { target, promo } = request;
  if (!('words' in target) || !('code' in promo)) return undefined;
  const sources = promoCodeSources(deps, request.userId);
  const typed = promo.code.toUpperCase();
  const matching = resolved.kind === 'found' ? [resolved.event] : resolved.kind === 'choices' ? resolved.events : [];
  for (const event of matching) {
    if ((await knownCodes(sources, event.id)).some((each) => each.toUpperCase() === typed)) return undefined;
  }
  const words = `${target.words} ${promo.code}`;
  const whole = await resolveEvent(deps.catalog, { words }, deps.interactive()).catch(() => undefined);
  if (whole?.kind !== 'found' || !continuesName(whole.event.name ?? '', words)) return undefined;
  // The report's codes are figures: a guest or a stranger editor is not told them.
  const reader = await privateReader(deps.audience, request.userId);
  const codes = shownOrNone(await knownCodes(sources, whole.event.id), reader, deps.figuresPolicy);
  return missingCodeMessage({
    eventName: eventLabel(whole.event),
    codes: codes ?? [],
    command: (each) => commandFor({ kind: 'promo', target, promo: { code: each }, quantity: request.quantity }, words),
  });
}
