import { z } from 'zod';
import { MAX_SEARCH_TEXT } from '../catalog/event-search.js';
import { isValidTimeZone } from '../time/zoned.js';

/** A channel's daily digest, or a person's in their DM with the bot, as stored. */
export interface Subscription {
  /** The channel; for a personal digest the person's user id (a post to it lands in their DM). */
  channelId: string;
  /** A person's own digest (`--me`), sent to their DM; absent on channel digests. */
  personal?: true | undefined;
  /**
   * `sales`: the sales digest of the conversation's watched events (`--sales`), kept beside its
   * event digest under its own key (`subscriptionKey`); absent on the event digest.
   */
  kind?: 'sales' | undefined;
  /** A sales digest's cadence: `weekly` posts on its one weekday (`weekdays`). */
  cadence?: 'daily' | 'weekly' | undefined;
  /** Local time of day, `HH:MM` (24 h). */
  time: string;
  timezone: string;
  /** Window: events starting within this many days of the digest. */
  days: number;
  /** Post nothing (instead of "nothing scheduled") when the window is empty. */
  skipEmpty: boolean;
  createdBy: string;
  createdAt: string;
  /**
   * `failing`: the channel refused posts (or the person cannot get DMs: they left the workspace);
   * no more digests until someone turns it on again.
   */
  status: 'active' | 'failing';
  failure?: string | undefined;
  /** Only events whose name matches these words (see `searchEvents`). */
  match?: string | undefined;
  /** ISO weekdays it is posted on (1 Monday .. 7 Sunday); every day when absent. */
  weekdays?: number[] | undefined;
  lastRun?: { date: string; at: string; outcome: 'sent' | 'skipped-empty' | 'failed' } | undefined;
  /** When the last digest was posted (a sales digest's next one counts sales since then). */
  lastSentAt?: string | undefined;
}

/** The key a sales digest is stored, claimed and scheduled under: apart from the event digest of its conversation. */
export const salesKey = (conversation: string) => `sales~${conversation}`;

/** A subscription's key: its conversation for the event digest, `sales~<conversation>` for the sales digest. */
export function subscriptionKey(subscription: Pick<Subscription, 'channelId' | 'kind'>): string {
  return subscription.kind === 'sales' ? salesKey(subscription.channelId) : subscription.channelId;
}

export const MAX_DIGEST_DAYS = 14;
/** `HH:MM` (24 h), hours with or without a leading zero. */
export const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export const subscriptionSchema = z.object({
  channelId: z.string().min(1),
  personal: z.literal(true).optional(),
  kind: z.literal('sales').optional(),
  cadence: z.enum(['daily', 'weekly']).optional(),
  time: z.string().regex(TIME_OF_DAY),
  timezone: z.string().refine(isValidTimeZone),
  days: z.number().int().min(1).max(MAX_DIGEST_DAYS),
  skipEmpty: z.boolean(),
  createdBy: z.string(),
  createdAt: z.string(),
  status: z.enum(['active', 'failing']),
  failure: z.string().optional(),
  match: z.string().max(MAX_SEARCH_TEXT).optional(),
  weekdays: z.array(z.number().int().min(1).max(7)).min(1).max(7).optional(),
  lastRun: z
    .object({ date: z.string(), at: z.string(), outcome: z.enum(['sent', 'skipped-empty', 'failed']) })
    .optional(),
  lastSentAt: z.string().optional(),
});

/** `HH:MM` as hour and minute. */
export function timeOfDay(time: string): { hour: number; minute: number } {
  const match = TIME_OF_DAY.exec(time);
  return { hour: Number(match?.[1] ?? 0), minute: Number(match?.[2] ?? 0) };
}

/** What `/events digest on` asked for; anything not given takes its default. */
export interface DigestOnOptions {
  /** `HH:MM`. @default '09:00' */
  time: string | undefined;
  /** An IANA zone the person named. */
  timezone: string | undefined;
  days: number;
  skipEmpty: boolean;
  match?: string | undefined;
  weekdays?: number[] | undefined;
  /** A sales digest (`--sales`) and its cadence; absent for the event digest. */
  sales?: { cadence: 'daily' | 'weekly' } | undefined;
}

export const DEFAULT_DIGEST_TIME = '09:00';

/** What a stored subscription was asked for: turning it on again keeps its settings. */
export function optionsOf(subscription: Subscription): DigestOnOptions {
  return {
    time: subscription.time,
    timezone: subscription.timezone,
    days: subscription.days,
    skipEmpty: subscription.skipEmpty,
    ...(subscription.match ? { match: subscription.match } : {}),
    ...(subscription.weekdays ? { weekdays: subscription.weekdays } : {}),
    ...(subscription.kind === 'sales' ? { sales: { cadence: subscription.cadence ?? 'daily' } } : {}),
  };
}

/** The weekdays a subscription posts on: a weekly sales digest's one day (Monday unless named), else as asked. */
function weekdaysOf(options: DigestOnOptions): number[] | undefined {
  if (options.sales?.cadence === 'weekly') return [options.weekdays?.[0] ?? 1];
  return options.weekdays;
}

/**
 * A new subscription from what was asked: the time defaults to 09:00, the zone to the one the
 * person named, else their Slack zone (`personZone`), else UTC. A personal one is keyed by the
 * person, wherever they asked for it.
 */
export function newSubscription(
  options: DigestOnOptions,
  context: { channelId: string; userId: string; personal?: boolean; personZone: string | undefined; now: number },
): { subscription: Subscription; zoneSource: 'named' | 'person' | 'default' } {
  const zoneSource = options.timezone ? 'named' : context.personZone ? 'person' : 'default';
  return {
    subscription: {
      channelId: context.personal ? context.userId : context.channelId,
      ...(context.personal ? { personal: true as const } : {}),
      ...(options.sales ? { kind: 'sales' as const, cadence: options.sales.cadence } : {}),
      time: options.time ?? DEFAULT_DIGEST_TIME,
      timezone: options.timezone ?? context.personZone ?? 'UTC',
      days: options.days,
      skipEmpty: options.skipEmpty,
      ...(options.match ? { match: options.match } : {}),
      ...(weekdaysOf(options) ? { weekdays: weekdaysOf(options) } : {}),
      createdBy: context.userId,
      createdAt: new Date(context.now).toISOString(),
      status: 'active',
    },
    zoneSource,
  };
}

const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** `mon-fri`, `mon,wed,fri`, `sat-sun`, `weekdays`, `weekends` as ISO weekdays (1 Monday .. 7 Sunday). */
export function parseWeekdays(text: string): number[] | undefined {
  const lower = text.toLowerCase();
  if (lower === 'weekdays') return [1, 2, 3, 4, 5];
  if (lower === 'weekends') return [6, 7];
  const days = new Set<number>();
  for (const part of lower.split(',')) {
    const [from, to, extra] = part.split('-');
    const start = DAY_NAMES.indexOf((from ?? '').slice(0, 3));
    const end = to === undefined ? start : DAY_NAMES.indexOf(to.slice(0, 3));
    if (extra !== undefined || start < 0 || end < 0) return undefined;
    for (let day = start; ; day = (day + 1) % 7) {
      days.add(day + 1);
      if (day === end) break;
    }
  }
  return [...days].sort((a, b) => a - b);
}

/** `Mon-Fri`, `Mon, Wed, Fri`: weekdays as people write them. */
export function describeWeekdays(weekdays: readonly number[]): string {
  const names = weekdays.map((day) => {
    const name = DAY_NAMES[day - 1] ?? '?';
    return name.charAt(0).toUpperCase() + name.slice(1);
  });
  const contiguous = weekdays.every((day, i) => i === 0 || day === (weekdays[i - 1] as number) + 1);
  return contiguous && weekdays.length > 2 ? `${names[0]}-${names.at(-1)}` : names.join(', ');
}

/** The ISO weekday (1 Monday .. 7 Sunday) of a `YYYY-MM-DD` date. */
export function isoWeekday(date: string): number {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}
