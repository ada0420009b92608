import {
  type FiguresPolicy,
  type Reader,
  type Shown,
  showFigures,
  type Withheld,
} from '../figures/may-show-figures.js';
import type { Logger } from '../logger.js';
import type { Watch } from './watch.js';

/**
 * Why a watch was paused when the figures rule held its figures back for good: its channel is
 * shared with another organization (and nobody confirmed it there), guests of the workspace are
 * among its members, the person it speaks for is a guest or of another organization, or it was
 * confirmed in a shared channel whose members cannot be read (the app is not in it, too many).
 * Stored on the watch; the pause message words each.
 */
export const FIGURES_PAUSE = {
  shared: 'shared_with_another_organization',
  guest: 'set_by_a_guest',
  stranger: 'set_by_another_organization',
  'guests-in-room': 'read_by_guests',
  'app-not-in': 'app_not_in_shared_channel',
  'too-many': 'too_many_members_to_read',
} as const;

/** Who would read a watch's figures: its conversation, and the person it speaks for (or who clicked). */
export type WatchReader = (watch: Watch, person?: string) => Promise<Reader>;

/** A watch's figures through the one rule (`showFigures`), or why they are held back. */
export type WatchGate<T> = { shown: Shown<T> } | { withheld: Withheld };

/**
 * A watch's figures (its card, alerts, summary, chart, its line in a sales digest) through the
 * figures rule, for the watch's conversation and the person it speaks for (`person`: someone who
 * clicked instead). Without a reader (no Slack to ask: benchmarks, the domain's own tests) the
 * watch's conversation counts as the organization's own.
 */
export async function watchFigures<T>(
  watch: Watch,
  figures: T,
  options: {
    reader: WatchReader | undefined;
    policy?: FiguresPolicy | undefined;
    person?: string | undefined;
    /** Hears a lookup that threw (it counts as not known: the figures are held). */
    onLookupError?: ((error: unknown) => void) | undefined;
  },
): Promise<WatchGate<T>> {
  const reader: Reader = options.reader
    ? await options.reader(watch, options.person).catch((error: unknown): Reader => {
        options.onLookupError?.(error);
        return { room: { kind: 'unknown', reason: 'the lookup failed' }, person: { kind: 'none' } };
      })
    : { room: { kind: 'internal' }, person: { kind: 'none' } };
  return showFigures(figures, reader, options.policy);
}

/** A watch's figures through the rule, for its conversation and the person it speaks for (or `person`, who clicked). */
export type WatchFigures = <T>(watch: Watch, figures: T, person?: string) => Promise<WatchGate<T>>;

/** `watchFigures` for every watch, with what the bot knows of its readers; a lookup that failed is logged. */
export function figuresOfWatches(
  reader: WatchReader | undefined,
  policy: FiguresPolicy | undefined,
  logger: Logger,
): WatchFigures {
  return (watch, figures, person) =>
    watchFigures(watch, figures, {
      reader,
      policy,
      person,
      onLookupError: (error) =>
        logger.info('Could not tell who reads a watch: its figures are held', { channel: watch.channel, error }),
    });
}

/** The pause a withheld verdict calls for, or undefined when it may change by itself (not known yet). */
export function pauseFor(withheld: Withheld): string | undefined {
  if (withheld.why === 'not-known') return undefined;
  return FIGURES_PAUSE[withheld.why === 'members-unread' ? withheld.because : withheld.why];
}
