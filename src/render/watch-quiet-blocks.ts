import type { Withheld } from '../figures/may-show-figures.js';
import type { Watch } from '../watches/watch.js';
import { type Block, context, plainMessage, type SlackMessage, warningMessage } from './block-kit.js';
import { channelLink, code, type Mrkdwn, md, readerInstant } from './mrkdwn.js';
import { eventName, mention } from './watch-words.js';
import { withheldWords } from './withheld-words.js';

/** What a click on an alert's Snooze or Mute, or `/events watches thread-only`, did: said to the person alone. */
export type WatchQuietAnswer =
  | { kind: 'snoozed'; watch: Watch }
  | { kind: 'muted' | 'unmuted'; watch: Watch }
  | { kind: 'not-yours'; watch: Watch }
  | { kind: 'gone' }
  | { kind: 'thread-only'; channel: string; on: boolean }
  | { kind: 'thread-only-personal' };

export function watchQuietAnswer(answer: WatchQuietAnswer): SlackMessage {
  switch (answer.kind) {
    case 'snoozed': {
      const name = eventName(answer.watch, 150);
      return plainMessage(
        md`:zzz: Alerts of *${name}* are snoozed ${snoozeWords(answer.watch) ?? md``}. The first alert after compares figures from after the snooze.`,
      );
    }
    case 'muted':
      return plainMessage(
        md`:no_bell: This watch of *${eventName(answer.watch, 150)}* no longer mentions or messages you; others still get its alerts. Click *Mute for me* again to undo it.`,
      );
    case 'unmuted':
      return plainMessage(md`:white_check_mark: This watch of *${eventName(answer.watch, 150)}* mentions you again.`);
    case 'not-yours': {
      const owner = mention(answer.watch.setBy);
      return warningMessage(
        md`A snooze quiets this watch for everyone, so only who set it up${owner ? md` (${owner})` : md``} or added one of its conditions may snooze it. *Mute for me* quiets it for you alone.`,
      );
    }
    case 'gone':
      return warningMessage(md`This event is not watched here any more.`);
    case 'thread-only':
      return plainMessage(
        answer.on
          ? md`:information_source: Watch alerts in ${channelLink(answer.channel)} now stay in each card's thread; only a sell-out and an event's end are also shown in the channel. ${code('/events watches thread-only off')} undoes it.`
          : md`Watch alerts in ${channelLink(answer.channel)} are shown in the channel again when a threshold is crossed.`,
      );
    case 'thread-only-personal':
      return warningMessage(md`Thread-only is for a channel's watches: run it in the channel, without \`--me\`.`);
  }
}

/** `until about <time> by <@U1>`, `until the next threshold`: undefined when the watch is not snoozed now. */
export function snoozeWords(watch: Watch, now?: number): Mrkdwn | undefined {
  const quiet = watch.quiet;
  if (!quiet) return undefined;
  const by = mention(quiet.snoozedBy);
  const who = by ? md` by ${by}` : md``;
  if (quiet.untilThreshold) return md`until the next threshold${who}`;
  if (quiet.snoozedUntil !== undefined && (now === undefined || quiet.snoozedUntil > now))
    return md`until about ${readerInstant(quiet.snoozedUntil)}${who}`;
  return undefined;
}

/** The card's line for a snoozed watch. */
export function snoozedLine(watch: Watch, now: number): Block | undefined {
  const words = snoozeWords(watch, now);
  return words && context(md`:zzz: Alerts snoozed ${words}`);
}

/** Thread-only refused: a channel's alerts are changed by those who may watch there. */
export function threadOnlyHeldMessage(withheld: Withheld): SlackMessage {
  return warningMessage(
    md`This channel's alerts are not changed: that is for people who may set its watches. ${withheldWords(withheld)}`,
  );
}
