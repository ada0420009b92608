import type { Withheld } from '../figures/may-show-figures.js';
import { type SlackMessage, warningMessage } from './block-kit.js';
import { code, type Mrkdwn, md } from './mrkdwn.js';

/**
 * Why figures were held back, and what the reader can do, as the person who asked reads it
 * (privately): the one wording of the figures rule's answers (docs/who-sees-figures.md).
 */
export function withheldWords(withheld: Withheld): Mrkdwn {
  switch (withheld.why) {
    case 'shared':
      return md`This conversation is shared with another organization, so sales and revenue are not posted here. Ask for the report in a channel of your own organization, or add \`--me\` to a watch to follow it yourself.`;
    case 'guest':
      return md`Sales and revenue are not shown to guests of this workspace. Ask a member of the organization if you need the figures.`;
    case 'guests-in-room':
      return md`Guests of this workspace are members of this conversation, so sales and revenue are not posted here. Ask in a channel without guests, or add \`--me\` to a watch to follow it yourself.`;
    case 'stranger':
      return md`Sales and revenue are shown only to people of the organization that runs these events.`;
    case 'members-unread':
      return withheld.because === 'app-not-in'
        ? md`This channel is shared with another organization and I am not in it, so I cannot tell whether guests of this workspace read it: sales and revenue are not posted there. Invite me with \`/invite @eventops\`, or add \`--me\` to a watch to follow it yourself.`
        : md`This channel is shared with another organization and has more members than I look up, so I cannot tell whether guests of this workspace read it: sales and revenue are not posted there. Add \`--me\` to a watch to follow it yourself.`;
    case 'not-known':
      return md`Slack could not say who can read ${withheld.about === 'person' ? md`this for you` : md`this conversation`} (${code(withheld.reason, 60)}), so its sales and revenue are held back. Try again in a minute.`;
  }
}

/**
 * A change to a channel's watches or digests refused (`/events unwatch`, `/events digest off`...):
 * that is for people who may set them, as `watches thread-only` says.
 */
export function channelChangeHeldMessage(withheld: Withheld, what: 'watches' | 'digest'): SlackMessage {
  const changed =
    what === 'watches'
      ? md`This channel's watches are not changed: that is for people who may set them.`
      : md`This channel's digest is not changed: that is for people who may set it.`;
  return warningMessage(md`${changed} ${withheldWords(withheld)}`);
}
