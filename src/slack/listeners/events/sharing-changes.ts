import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps/slack-deps.js';

/** The events that say who can read a conversation, or who a person is, changed. */
export const SHARING_EVENTS = ['channel_shared', 'channel_unshared', 'member_joined_channel', 'user_change'] as const;

/**
 * Who reads a conversation changed (shared with another organization, unshared, a guest or a
 * stranger joined): what was kept of it is forgotten, on every replica, so the next figures ask
 * Slack again, and its confirmations to share figures anyway end, pausing at once the watches
 * whose figures may no longer go there. A person made a guest, or a member: what was kept of them
 * is forgotten, and of every conversation.
 */
export function registerSharingChanges(app: App, deps: SlackDeps): void {
  const reconsider = async (channel: unknown, why: string) => {
    if (typeof channel !== 'string' || channel === '') return;
    await deps.audience.forget(channel);
    const paused = await deps.watches?.reconsider(channel).catch((error: unknown) => {
      deps.logger.warn('Could not reconsider the watches of a conversation whose readers changed', {
        channel,
        error,
      });
      return 0;
    });
    deps.logger.info('Who reads a conversation changed: its figures are asked about again', {
      channel,
      why,
      watchesPaused: paused ?? 0,
    });
  };
  app.event('channel_shared', async ({ event }) => reconsider(event.channel, 'shared'));
  app.event('channel_unshared', async ({ event }) => reconsider(event.channel, 'unshared'));
  app.event('member_joined_channel', async ({ event, client }) => {
    if (typeof event.user !== 'string') return reconsider(event.channel, 'joined');
    // A member of the organization changes nothing the rule asks (every channel is looked up
    // with its members); a guest, a stranger, or someone Slack could not say of changes who
    // reads the channel.
    const person = await deps.audience.person(event.user, client);
    if (person.kind === 'member') return;
    await reconsider(event.channel, `joined: ${person.kind}`);
  });
  app.event('user_change', async ({ event }) => {
    const user = (
      event as {
        user?: { id?: unknown; is_restricted?: unknown; is_ultra_restricted?: unknown; is_stranger?: unknown };
      }
    ).user;
    if (typeof user?.id !== 'string') return;
    // Sent for any profile or status change: only a change of the guest or stranger flags counts.
    await deps.audience.personChanged(user.id, {
      guest: user.is_restricted === true || user.is_ultra_restricted === true,
      stranger: user.is_stranger === true,
    });
  });
}
