import { type Block, context, mrkdwnSection, type SlackMessage, warning } from './block-kit.js';
import { clip, code, type Mrkdwn, md } from './mrkdwn.js';

export const REPORT_POST_IN_CHANNEL_ACTION = 'report_post_in_channel';
export const WATCH_SHARED_CHANNEL_ANYWAY_ACTION = 'watch_shared_channel_anyway';
export const WATCH_SHARED_CHANNEL_FOR_ME_ACTION = 'watch_shared_channel_for_me';

/**
 * Why figures were kept out of a channel: it is shared with another organization (`external`: a
 * choice may share them there anyway), shared and guests of the workspace are among its members
 * (`external-guests`) or its members could not be read (`external-unread`), where no choice
 * lifts it; or Slack could not say (`unknown`).
 */
export type SharingDoubt = 'external' | 'external-guests' | 'external-unread' | 'unknown';

/** Longest value a button carries (Slack allows 2000). */
const MAX_VALUE = 1_900;

const SHARED_WORDS: Record<SharingDoubt, Mrkdwn> = {
  external: md`This channel is shared with another organization`,
  'external-guests': md`This channel is shared with another organization, and guests of this workspace are among its members`,
  'external-unread': md`This channel is shared with another organization, and I could not read who is in it`,
  unknown: md`I could not check whether this channel is shared with another organization`,
};
const sharedWords = (why: SharingDoubt): Mrkdwn => SHARED_WORDS[why];

/** The context line under a report answered privately, and its button to post it in the channel. */
export function postInChannelBlocks(options: { eventId: string; label: string; why: SharingDoubt }): Block[] {
  const value = JSON.stringify({ e: options.eventId, l: options.label.slice(0, 150) });
  // Sharing anyway is a choice made only where Slack said the channel is shared: what is not
  // known is not allowed, so nothing is offered then (ask again once Slack answers).
  if (options.why === 'unknown')
    return [
      context(
        md`:eyes: ${sharedWords(options.why)}, so only you see this report. Ask again in a minute to post it there.`,
      ),
    ];
  // A choice never lifts guests of the workspace among the members, nor members not read.
  if (options.why !== 'external')
    return [context(md`:eyes: ${sharedWords(options.why)}, so only you see this report.`)];
  return [
    context(md`:eyes: ${sharedWords(options.why)}, so only you see this report.`),
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: REPORT_POST_IN_CHANNEL_ACTION,
          text: { type: 'plain_text', text: 'Post in channel' },
          value,
          confirm: {
            title: { type: 'plain_text', text: 'Post figures in channel?' },
            text: {
              type: 'mrkdwn',
              text: md`${sharedWords(options.why)}. Everyone in it, people outside your organization too, will see this event's ticket sales and revenue.`,
            },
            confirm: { type: 'plain_text', text: 'Post in channel' },
            deny: { type: 'plain_text', text: 'Keep it private' },
          },
        },
      ],
    },
  ];
}

/**
 * A channel watch refused in a channel shared with another organization (its card shows sales and
 * revenue): set it for the person instead, or in the channel anyway after a confirmation.
 * `command` is the `/events` text that sets it (`watch <id>: <conditions>`).
 */
export function sharedChannelWatchMessage(options: {
  eventName: string;
  command: string;
  why: SharingDoubt;
}): SlackMessage {
  const everyone =
    options.why === 'external-guests'
      ? md`everyone in it, guests and people outside your organization too`
      : md`everyone in it, people outside your organization too`;
  const text = warning(
    md`${sharedWords(options.why)}: a watch card for *${clip(options.eventName, 200)}* here would show its ticket sales and revenue to ${everyone}. The watch was not set.`,
  );
  const blocks: Block[] = [mrkdwnSection(text)];
  if (options.command.length <= MAX_VALUE) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: WATCH_SHARED_CHANNEL_FOR_ME_ACTION,
          style: 'primary',
          text: { type: 'plain_text', text: 'Watch it for me' },
          value: options.command,
        },
        // Offered only where Slack said the channel is shared and a choice may lift that: not
        // when it could not say, nor with guests of the workspace among its members.
        ...(options.why === 'external' ? [anywayButton(options.command, options.why)] : []),
      ],
    });
  }
  blocks.push(context(md`A watch just for you comes to your DM with me: ${code('/events watch … --me')}.`));
  return { text, blocks };
}

function anywayButton(command: string, why: SharingDoubt) {
  return {
    type: 'button' as const,
    action_id: WATCH_SHARED_CHANNEL_ANYWAY_ACTION,
    text: { type: 'plain_text' as const, text: 'Watch in this channel anyway' },
    value: command,
    confirm: {
      title: { type: 'plain_text' as const, text: 'Show figures here?' },
      text: {
        type: 'mrkdwn' as const,
        text: md`${sharedWords(why)}. The watch card and its alerts will show ticket sales and revenue to everyone in it, people outside your organization too, until the channel's sharing or members change.`,
      },
      confirm: { type: 'plain_text' as const, text: 'Watch here' },
      deny: { type: 'plain_text' as const, text: 'Cancel' },
    },
  };
}

/**
 * A channel watch asked for in a channel the bot is not in: its card could never be posted, so it
 * is not set; how to invite the bot, or watch for oneself instead.
 */
export function notInChannelWatchMessage(options: { eventName: string; command: string }): SlackMessage {
  const text = warning(
    md`I am not in this channel, so a watch card for *${clip(options.eventName, 200)}* could never be posted here: the watch was not set. Invite me with \`/invite @eventops\`, then run ${code(`/events ${options.command}`, 300)} again, or add \`--me\` to watch it for yourself.`,
  );
  return { text, blocks: [mrkdwnSection(text)] };
}
