import type { App } from '@slack/bolt';
import { warningMessage } from '../../../render/block-kit.js';
import { clip, md } from '../../../render/mrkdwn.js';
import { watchChartMessage } from '../../../render/sales-blocks.js';
import { WATCH_CHART_ACTION } from '../../../render/watch-card-blocks.js';
import { withheldWords } from '../../../render/withheld-words.js';
import { parseId } from '../../../ticketing/ids.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { ackFirst } from '../../replies/ack-first.js';
import { buttonValue } from '../../replies/button-value.js';
import { postCounted } from '../../replies/posted-messages.js';
import { respondPrivately } from '../../replies/respond-safely.js';
import { countSlackError } from '../../replies/slack-errors.js';

/**
 * The watch card's **Chart** button: the event's sales chart (with capacity and the forecast), its
 * promo codes as a chart and a table, in the card's thread, from what is stored (no report call).
 * The conversation and the card are the ones the click came from; the button names only the event.
 */
export function registerWatchChart(app: App, deps: SlackDeps): void {
  app.action(WATCH_CHART_ACTION, async ({ ack, action, body, client, respond }) => {
    await ackFirst(ack);
    const channel = body.channel?.id;
    const cardTs =
      'container' in body && body.container ? (body.container as { message_ts?: unknown }).message_ts : undefined;
    let eventId: string;
    try {
      eventId = parseId('event', buttonValue(action));
    } catch {
      return;
    }
    if (!channel || typeof cardTs !== 'string' || !deps.watches) return;
    // The watch of this event the card belongs to: the conversation's own, or in a DM with the
    // app also the person's personal one (its figures never go to a channel by a copied button).
    const dm = channel.startsWith('D');
    const watches = [
      ...(await deps.watches.find({ channel })),
      ...(dm ? await deps.watches.find({ channel: body.user.id }) : []),
    ];
    const watch = watches.find((w) => w.eventId === eventId && (w.channel === channel || (dm && w.personal)));
    if (!watch) {
      await respondPrivately(respond, warningMessage(md`This event is not watched here any more.`), deps.logger);
      return;
    }
    const check = await deps.watches.lastCheck(eventId);
    const insight = await deps.insights?.of(eventId).catch(() => undefined);
    // The figures rule, for this conversation and the person who clicked: Slack not saying holds
    // the chart back too.
    const gate = await deps.watches.figures(watch, { report: check?.report ?? {}, insight }, body.user.id);
    if ('withheld' in gate) {
      await respondPrivately(respond, warningMessage(withheldWords(gate.withheld)), deps.logger);
      return;
    }
    const message = watchChartMessage({ eventName: watch.eventName, figures: gate.shown });
    try {
      await postCounted(
        client,
        deps.metrics,
        { channel, message, thread: { ts: cardTs, broadcast: false } },
        { logger: deps.logger, kind: 'chart' },
      );
    } catch (error) {
      countSlackError(deps.metrics, 'chat.postMessage', error);
      deps.logger.warn('Could not post a watch chart', { error });
      await respondPrivately(
        respond,
        warningMessage(md`The chart of *${clip(watch.eventName, 150)}* could not be posted in the thread.`),
        deps.logger,
      );
    }
  });
}
