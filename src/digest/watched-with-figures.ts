import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { WatchedEvent } from './digest-composers.js';

/** What a sales digest needs of the watches: a conversation's watches, and their figures through the figures rule. */
export interface DigestWatches {
  find(filter: {
    channel: string;
  }): Promise<readonly { eventId: string; eventName: string; startsAtMs: number | undefined; paused?: unknown }[]>;
  figures<T>(
    watch: { eventId: string; eventName: string; startsAtMs: number | undefined },
    figures: T,
  ): Promise<{ shown: Shown<T> } | { withheld: Withheld }>;
}

/**
 * The events a sales digest lists in a conversation: its live watches (a person's own for a
 * personal digest) whose figures the figures rule lets go there (in a channel shared with another
 * organization, those someone confirmed). Slack not saying fails the digest, to be tried again,
 * rather than post without the watches or with figures that may not belong there.
 */
export async function watchedWithFigures(watches: DigestWatches, conversation: string): Promise<Shown<WatchedEvent>[]> {
  const live = (await watches.find({ channel: conversation })).filter((watch) => !watch.paused);
  const gates = await Promise.all(
    live.map((watch) =>
      watches.figures(watch, { eventId: watch.eventId, eventName: watch.eventName, startsAtMs: watch.startsAtMs }),
    ),
  );
  if (gates.some((gate) => 'withheld' in gate && gate.withheld.why === 'not-known'))
    throw new Error('Could not tell who reads the conversation');
  return gates.flatMap((gate) => ('shown' in gate ? [gate.shown] : []));
}
