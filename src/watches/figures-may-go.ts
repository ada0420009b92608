import type { Watch } from './watch.js';

/** Why a watch was paused when its channel turned out to be shared with another organization. */
export const SHARED_CHANNEL_PAUSE = 'shared_with_another_organization';

/** Who can read a conversation, as far as figures go: the organization alone, another organization too, or Slack could not say. */
export type ConversationSharing = 'internal' | 'external' | 'unknown';

/**
 * Whether a watch's figures (its card, alerts, chart, its line in a sales digest) may go to its
 * conversation: always for a person's own watch and for a channel watch someone confirmed there,
 * else as the conversation's sharing says. `unknown` when Slack could not say: the caller decides
 * (a check goes on as the card already did, a digest waits and tries again).
 */
export async function watchFiguresMayGo(
  watch: Pick<Watch, 'personal' | 'sharedConfirmed' | 'channel'>,
  sharing: ((conversation: string) => Promise<ConversationSharing>) | undefined,
  /** Hears a lookup that threw (it counts as `unknown`). */
  onLookupError?: (error: unknown) => void,
): Promise<'yes' | 'no' | 'unknown'> {
  if (watch.personal || watch.sharedConfirmed || !sharing) return 'yes';
  const known = await sharing(watch.channel).catch((error: unknown): ConversationSharing => {
    onLookupError?.(error);
    return 'unknown';
  });
  switch (known) {
    case 'internal':
      return 'yes';
    case 'external':
      return 'no';
    case 'unknown':
      return 'unknown';
  }
}
