import type { DayEntry } from '../catalog/calendar-days.js';
import type { DigestOutcome } from '../digest/digest-runner.js';
import { describeWeekdays, type Subscription, timeOfDay } from '../digest/subscription.js';
import {
  type Block,
  context,
  header,
  LIMITS,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warning,
  warningMessage,
} from './block-kit.js';
import { longDayWords, shortDayWords } from './day-words.js';
import { eventPlainTitle, eventSection } from './event-blocks.js';
import {
  channelLink,
  clip,
  joinMrkdwn,
  type Mrkdwn,
  md,
  mentionUser,
  readerInstant,
  readerIsoInstant,
} from './mrkdwn.js';
import { plural } from './plural.js';

export interface DigestInput {
  /** What the digest lists, each under its day, in order (see `eventsByDay`). */
  entries: DayEntry[];
  days: number;
  /** The subscription's local date this digest is for (`YYYY-MM-DD`). */
  date: string;
}

/** The daily digest: whole days in the channel's zone, each day's events soonest first, within Slack's limits. */
export function digestMessage(input: DigestInput): SlackMessage {
  const window = input.days === 1 ? md`today` : md`the next ${input.days} days`;
  const { entries } = input;
  if (entries.length === 0) {
    return {
      text: md`Daily digest for ${clip(longDayWords(input.date), 40)}: nothing scheduled ${window}.`,
      blocks: [mrkdwnSection(md`:calendar: Nothing scheduled ${window}.`)],
    };
  }
  const blocks: Block[] = [header(md`Events ${window} (${entries.length})`)];
  // Keep room for the closing "...and N more" line.
  const room = LIMITS.messageBlocks - 2;
  let currentDay = '';
  let shown = 0;
  for (const entry of entries) {
    const needed = (entry.day === currentDay ? 0 : 1) + 2;
    if (blocks.length + needed > room) break;
    if (entry.day !== currentDay) {
      currentDay = entry.day;
      const count = entries.filter((e) => e.day === entry.day).length;
      blocks.push(mrkdwnSection(md`*${clip(longDayWords(entry.day), 80)}* · ${plural(count, 'event')}`));
    }
    blocks.push(...eventSection(entry.event));
    shown += 1;
  }
  if (shown < entries.length)
    blocks.push(context(md`...and ${entries.length - shown} more: \`/events list\` shows them all`));
  const first = (entries[0] as DayEntry).event;
  return {
    text: md`Daily digest for ${clip(longDayWords(input.date), 40)}: ${plural(entries.length, 'event')} ${window}, first ${eventPlainTitle(first)}`,
    blocks,
  };
}

/** A subscription with its next run, for `/events digest status`. */
export type DigestStatusInput = Subscription & { nextAt: number };

const instant = (ms: number, timezone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(ms);

/** `Weekly sales digest`, `Daily sales digest`: a sales digest's name (capitalised at the start of a sentence). */
function salesTitle(subscription: Pick<Subscription, 'cadence'>, start = true): string {
  const cadence = subscription.cadence === 'weekly' ? 'weekly' : 'daily';
  return `${start ? cadence.charAt(0).toUpperCase() + cadence.slice(1) : cadence} sales digest`;
}

/** When a sales digest comes: `Mon at 08:00 UTC`, `Mon-Fri at 08:00 UTC`, or `08:00 UTC` every day. */
function salesWhen(subscription: Pick<Subscription, 'weekdays' | 'time' | 'timezone'>): Mrkdwn {
  const days = subscription.weekdays ? md`${clip(describeWeekdays(subscription.weekdays), 40)} at ` : md``;
  return md`${days}${clip(subscription.time, 5)} ${clip(subscription.timezone, 60)}`;
}

/** What both digests' status says alike: paused or not, the next run in its zone and yours, the last run. */
function statusParts(input: DigestStatusInput) {
  const refused = input.personal ? md`I could not DM you` : md`the channel refused posts`;
  const paused =
    input.status === 'failing'
      ? md`  ${warning(md`*Paused*: ${refused} (${clip(input.failure ?? 'unknown', 60)})`)}`
      : md``;
  const next =
    input.status === 'active'
      ? md`${clip(instant(input.nextAt, input.timezone), 40)} (${readerInstant(input.nextAt, '{date_short_pretty} at {time} your time')})`
      : md`none until it is turned on again`;
  const last = input.lastRun
    ? md`${clip(input.lastRun.date, 10)}: ${clip(input.lastRun.outcome, 20)} at ${readerIsoInstant(input.lastRun.at)}`
    : md`not yet`;
  const setUp = input.personal
    ? md`• Set up on ${clip(input.createdAt.slice(0, 10), 10)}`
    : md`• Set up by ${mentionUser(input.createdBy)} on ${clip(input.createdAt.slice(0, 10), 10)}`;
  return {
    paused,
    time: md`• Time: ${clip(input.time, 5)} ${clip(input.timezone, 60)}`,
    days: md`• Days: ${input.weekdays ? clip(describeWeekdays(input.weekdays), 40) : md`every day`}`,
    /** The last lines every status ends with: next run, last run, who set it up. */
    runs: [md`• Next run: ${next}`, md`• Last run: ${last}`, setUp],
  };
}

/** `/events digest status --sales`: a sales digest's settings, next and last run. */
function salesDigestStatusMessage(input: DigestStatusInput): SlackMessage {
  const title = clip(salesTitle(input), 30);
  const { paused, time, days, runs } = statusParts(input);
  const lines = [
    input.personal
      ? md`*Your ${clip(salesTitle(input, false), 30)}, in your DM with me*${paused}`
      : md`*${title} in ${channelLink(input.channelId)}*${paused}`,
    time,
    days,
    md`• Covers: ${input.personal ? md`your own watches` : md`the events watched here`}: sales since the previous digest, pace and forecast, from the figures already read`,
    ...runs,
  ];
  return {
    text: md`${title} at ${salesWhen(input)}`,
    blocks: [mrkdwnSection(joinMrkdwn(lines))],
  };
}

/** `/events digest status` (`--me`: the person's own, in their DM; a sales digest's own settings). */
export function digestStatusMessage(input: DigestStatusInput): SlackMessage {
  if (input.kind === 'sales') return salesDigestStatusMessage(input);
  const { paused, time, days, runs } = statusParts(input);
  const window =
    input.days === 1 ? md`today's events` : md`the events of today and the next ${plural(input.days - 1, 'day')}`;
  const lines = [
    input.personal
      ? md`*Your daily digest, in your DM with me*${paused}`
      : md`*Daily digest in ${channelLink(input.channelId)}*${paused}`,
    time,
    md`• Window: ${window}, whole days in ${clip(input.timezone, 60)}${input.skipEmpty ? md`, nothing posted when empty` : md``}`,
    md`• Events: ${input.match ? md`named like "${clip(input.match, 100)}"` : md`all`}`,
    days,
    ...runs,
  ];
  return {
    text: md`Daily digest at ${clip(input.time, 5)} ${clip(input.timezone, 60)}`,
    blocks: [mrkdwnSection(joinMrkdwn(lines))],
  };
}

/** The channel message that proves the bot may post there, before anything is saved. */
export function digestAnnouncement(subscription: Subscription): SlackMessage {
  if (subscription.kind === 'sales') {
    const text = md`${mentionUser(subscription.createdBy)} set up a ${clip(salesTitle(subscription, false), 30)} here: the sales, pace and forecast of the events watched here, ${salesWhen(subscription)}.`;
    return { text, blocks: [mrkdwnSection(text)] };
  }
  const text = md`${mentionUser(subscription.createdBy)} set up a daily digest here: ${windowWords(subscription.days)}, every day at ${clip(subscription.time, 5)} (${clip(subscription.timezone, 60)}).`;
  return { text, blocks: [mrkdwnSection(text)] };
}

/** The DM that turns a personal digest on: it proves the bot can reach the person, and shows where digests arrive. */
export function personalDigestAnnouncement(subscription: Subscription): SlackMessage {
  if (subscription.kind === 'sales')
    return plainMessage(
      md`:wave: Your ${clip(salesTitle(subscription, false), 30)} is on: the sales, pace and forecast of the events you watch with \`--me\`, ${salesWhen(subscription)}, here in our DM. Turn it off with \`/events digest off --sales --me\`.`,
    );
  const days = subscription.weekdays ? clip(describeWeekdays(subscription.weekdays), 40) : md`every day`;
  return plainMessage(
    md`:wave: Your daily digest is on: ${windowWords(subscription.days)}, ${days} at ${clip(subscription.time, 5)} (${clip(subscription.timezone, 60)}), here in our DM. Turn it off with \`/events digest off --me\` or in my Home tab.`,
  );
}

/** A plain date in words, as other dates read (`Sat, Nov 28`). */
const dayWords = (date: string): Mrkdwn => clip(shortDayWords(date), 20);

const windowWords = (days: number) => (days === 1 ? md`today's events` : md`the events of the next ${days} days`);

const ZONE_NOTES: Record<'named' | 'person' | 'default', Mrkdwn> = {
  named: md``,
  person: md` (your Slack timezone)`,
  default: md` (Slack did not tell me your timezone)`,
};

/** The private answer to `/events digest on`. */
export function digestOnMessage(
  subscription: Subscription,
  firstDate: string,
  zoneSource: 'named' | 'person' | 'default',
): SlackMessage {
  const where = subscription.personal ? md`, in your DM with me` : md``;
  if (subscription.kind === 'sales') {
    const title = clip(salesTitle(subscription, !subscription.personal), 30);
    const on = subscription.personal ? md`Your ${title} is on` : md`${title} on`;
    const covers = subscription.personal ? md`the events you watch with \`--me\`` : md`the events watched here`;
    return plainMessage(
      md`:white_check_mark: ${on}: ${salesWhen(subscription)}${ZONE_NOTES[zoneSource]}, ${covers}${where}. First one: ${dayWords(firstDate)}.`,
    );
  }
  const what = subscription.personal ? md`Your daily digest is on` : md`Daily digest on`;
  return plainMessage(
    md`:white_check_mark: ${what}: ${clip(subscription.time, 5)} ${clip(subscription.timezone, 60)}${ZONE_NOTES[zoneSource]}, ${windowWords(subscription.days)}${where}. First one: ${dayWords(firstDate)}.`,
  );
}

export function noDigestMessage(personal = false, sales = false): SlackMessage {
  if (sales)
    return plainMessage(
      personal
        ? md`You have no sales digest of your own. Turn one on with \`/events digest on --sales --me [daily | weekly] [HH:MM] [zone]\`: the events you watch, in your DM with me.`
        : md`This channel has no sales digest. Turn one on with \`/events digest on --sales [daily | weekly] [HH:MM] [zone]\`: the sales of the events watched here.`,
    );
  return plainMessage(
    personal
      ? md`You have no daily digest of your own. Turn one on with \`/events digest on --me [HH:MM] [zone] [--days N]\`: it comes to your DM with me.`
      : md`This channel has no daily digest. Turn one on with \`/events digest on [HH:MM] [zone] [--days N]\`.`,
  );
}

export function digestOffMessage(removed: boolean, personal = false, sales = false): SlackMessage {
  if (!removed) return noDigestMessage(personal, sales);
  if (sales) return plainMessage(personal ? md`Your sales digest is off.` : md`Sales digest off for this channel.`);
  return plainMessage(personal ? md`Your daily digest is off.` : md`Daily digest off for this channel.`);
}

/** What `/events digest now` tells the person: "already posted" only when it was. */
export function digestNowMessage(
  outcome: DigestOutcome,
  now: number,
  channelProblem: Mrkdwn | undefined,
  personal = false,
  sales = false,
): SlackMessage {
  const digest = sales ? md`sales digest` : md`digest`;
  // The same outcomes, said of a channel's digest or of the person's own (in their DM).
  const w = personal
    ? {
        the: md`Your ${digest}`,
        gone: md`sent`,
        there: md` to your DM`,
        ongoing: md`being sent to you`,
        comes: md`does not come`,
      }
    : {
        the: md`The ${digest}`,
        gone: md`posted`,
        there: md` here`,
        ongoing: md`being posted`,
        comes: md`does not post`,
      };
  switch (outcome.kind) {
    case 'sent':
      return plainMessage(personal ? md`Sent today's ${digest} to your DM.` : md`Posted today's ${digest}.`);
    case 'skipped-empty': {
      const empty = personal
        ? sales
          ? md`You watch no event, and your sales digest skips empty ones`
          : md`Nothing is scheduled, and your digest skips empty days`
        : sales
          ? md`No event is watched here, and this digest skips empty ones`
          : md`Nothing is scheduled, and this digest skips empty days`;
      return plainMessage(md`${empty}: nothing ${w.gone}.`);
    }
    case 'already-sent':
      return plainMessage(md`Today's ${digest} was already ${w.gone}${w.there}.`);
    case 'in-progress':
      return plainMessage(md`Today's ${digest} is ${w.ongoing} right now.`);
    case 'channel-failing':
      return warningMessage(
        personal
          ? md`I could not DM you (${clip(outcome.reason, 40)}), so your ${digest} is paused. Turn it on again with \`/events digest on --me${sales ? md` --sales` : md``}\`.`
          : md`This channel refused the ${digest}, so it is paused. ${channelProblem ?? md``}`,
      );
    case 'failed':
      return warningMessage(
        outcome.stopping
          ? md`${w.the} could not be ${w.gone} just now, and eventops is shutting down: run \`/events digest now${personal ? md` --me` : md``}${sales ? md` --sales` : md``}\` again once it is back.`
          : outcome.retryAt === undefined
            ? md`${w.the} could not be ${w.gone}, and its grace period is over. It has been logged.`
            : md`${w.the} could not be ${w.gone} just now; I'll try again in about ${plural(minutesUntil(outcome.retryAt, now), 'minute')}.`,
      );
    case 'not-this-weekday':
      return plainMessage(md`${personal ? md`Your` : md`This`} ${digest} ${w.comes} on this weekday.`);
    case 'no-subscription':
      return noDigestMessage(personal, sales);
  }
}

/** Whole minutes until `at`, one at least (a retry "in about 3 minutes"). */
const minutesUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 60_000));

/** The DM to the person who set a digest up when its channel refuses posts. */
export function digestPausedMessage(channelId: string, reason: string, subscription?: Subscription): SlackMessage {
  if (subscription?.kind === 'sales')
    return plainMessage(
      md`The sales digest you set up in ${channelLink(channelId)} could not be posted (${clip(reason, 40)}), so it is paused. Invite me back with \`/invite @eventops\` and run \`/events digest on --sales\` there to resume.`,
    );
  return plainMessage(
    md`The daily digest you set up in ${channelLink(channelId)} could not be posted (${clip(reason, 40)}), so it is paused. Invite me back with \`/invite @eventops\` and run \`/events digest on\` there to resume.`,
  );
}

/** App Home's buttons and time picker of the person's own digest. */
export const DIGEST_HOME_ON = 'digest_home_on';
export const DIGEST_HOME_OFF = 'digest_home_off';
export const DIGEST_HOME_TIME = 'digest_home_time';

export interface PersonalDigestHomeInput {
  /** The person's own digest with its next run, or undefined when they have none. */
  digest: DigestStatusInput | undefined;
  /** Why the last button press or time change did not work, when it did not. */
  notice?: Mrkdwn | undefined;
}

const paddedTime = (time: string) => {
  const { hour, minute } = timeOfDay(time);
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
};

const homeButton = (text: string, actionId: string, style?: 'primary' | 'danger') => ({
  type: 'button' as const,
  action_id: actionId,
  value: actionId,
  text: { type: 'plain_text' as const, text },
  ...(style ? { style } : {}),
});

/** App Home's section on the person's own digest: what it is, an on/off button and its time. */
export function personalDigestHomeBlocks(input: PersonalDigestHomeInput): Block[] {
  const blocks: Block[] = [header(md`Your daily digest`)];
  const { digest } = input;
  if (!digest) {
    blocks.push({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: md`*Off.* Turn it on to get today's events in your DM with me every day at 09:00 in your Slack timezone, or choose with \`/events digest on --me [HH:MM] [zone] [--days N] [--match words] [--weekdays mon-fri]\`.`,
      },
      accessory: homeButton('Turn on', DIGEST_HOME_ON, 'primary'),
    });
  } else {
    const days = digest.weekdays ? clip(describeWeekdays(digest.weekdays), 40) : md`every day`;
    const what = md`${windowWords(digest.days)}${digest.match ? md` named like "${clip(digest.match, 100)}"` : md``}, ${days} at ${clip(digest.time, 5)} (${clip(digest.timezone, 60)})`;
    const text =
      digest.status === 'active'
        ? md`*On*: ${what}, in your DM. Next: ${readerInstant(digest.nextAt)}.`
        : md`:double_vertical_bar: *Paused*: I could not DM you (${clip(digest.failure ?? 'unknown', 60)}). It was ${what}.`;
    blocks.push(
      {
        type: 'section',
        text: { type: 'mrkdwn', text },
        accessory:
          digest.status === 'active'
            ? homeButton('Turn off', DIGEST_HOME_OFF)
            : homeButton('Turn on again', DIGEST_HOME_ON, 'primary'),
      },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: md`Time of day, in ${clip(digest.timezone, 60)}:` },
        accessory: { type: 'timepicker', action_id: DIGEST_HOME_TIME, initial_time: paddedTime(digest.time) },
      },
    );
  }
  if (input.notice) blocks.push(context(warning(input.notice)));
  return blocks;
}
