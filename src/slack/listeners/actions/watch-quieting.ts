import type { App } from '@slack/bolt';
import { WATCH_MUTE_ACTION, WATCH_SNOOZE_ACTIONS } from '../../../render/watch-alert-blocks.js';
import { type WatchQuietAnswer, watchQuietAnswer } from '../../../render/watch-quiet-blocks.js';
import { parseId } from '../../../ticketing/ids.js';
import { maySnooze, type SnoozeChoice } from '../../../watches/alert-quieting.js';
import type { Watch } from '../../../watches/watch.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { respondPrivately } from '../../replies/respond-safely.js';

type ActionArgs = Parameters<Parameters<App['action']>[1]>[0];

/**
 * An alert's **Snooze** buttons (for everyone: only who the watch speaks for) and **Mute for me**
 * (for the one who clicks). The watch is the one of the conversation the click came from, as the
 * Chart button finds it; the button names only the event.
 */
export function registerWatchQuieting(app: App, deps: SlackDeps): void {
  for (const [choice, actionId] of Object.entries(WATCH_SNOOZE_ACTIONS) as [SnoozeChoice, string][]) {
    app.action(actionId, async (args) => {
      await ackFirst(args.ack);
      await quiet(args, deps, async (watch, person) => {
        if (!maySnooze(watch, person)) return { kind: 'not-yours', watch };
        const snoozed = await deps.watches?.quieting?.snooze(watch.channel, watch.eventId, person, choice);
        if (!snoozed) return { kind: 'gone' };
        await deps.watches
          ?.refreshCard(snoozed)
          .catch((error: unknown) => deps.logger.info('Could not show a snooze on its card', { error }));
        return { kind: 'snoozed', watch: snoozed };
      });
    });
  }
  app.action(WATCH_MUTE_ACTION, async (args) => {
    await ackFirst(args.ack);
    await quiet(args, deps, async (watch, person) => {
      const muted = await deps.watches?.quieting?.toggleMute(watch.channel, watch.eventId, person);
      if (muted === undefined) return { kind: 'gone' };
      return { kind: muted ? 'muted' : 'unmuted', watch };
    });
  });
}

async function quiet(
  { action, body, respond }: ActionArgs,
  deps: SlackDeps,
  change: (watch: Watch, person: string) => Promise<WatchQuietAnswer>,
): Promise<void> {
  const channel = body.channel?.id;
  let eventId: string;
  try {
    eventId = parseId('event', buttonValue(action));
  } catch {
    return;
  }
  if (!channel || !deps.watches) return;
  const person = body.user.id;
  // In a DM with the app, the person's own personal watch; elsewhere the conversation's.
  const dm = channel.startsWith('D');
  const watches = [
    ...(await deps.watches.find({ channel })),
    ...(dm ? await deps.watches.find({ channel: person }) : []),
  ];
  const watch = watches.find((w) => w.eventId === eventId && (w.channel === channel || (dm && w.personal)));
  const answer = watch ? await change(watch, person) : ({ kind: 'gone' } as const);
  await respondPrivately(respond, watchQuietAnswer(answer), deps.logger);
}
