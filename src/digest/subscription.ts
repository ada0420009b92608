import { z } from 'zod';
import { isValidTimeZone } from '../time/zoned.js';

/** A channel's daily digest, as stored. */
export interface Subscription {
  channelId: string;
  /** Local time of day, `HH:MM` (24 h). */
  time: string;
  timezone: string;
  /** Window: events starting within this many days of the digest. */
  days: number;
  /** Post nothing (instead of "nothing scheduled") when the window is empty. */
  skipEmpty: boolean;
  createdBy: string;
  createdAt: string;
  /** `failing`: the channel refused posts; no more digests until someone turns it on again. */
  status: 'active' | 'failing';
  failure?: string | undefined;
  lastRun?: { date: string; at: string; outcome: 'sent' | 'skipped-empty' | 'failed' } | undefined;
}

export const MAX_DIGEST_DAYS = 14;
/** `HH:MM` (24 h), hours with or without a leading zero. */
export const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export const subscriptionSchema = z.object({
  channelId: z.string().min(1),
  time: z.string().regex(TIME_OF_DAY),
  timezone: z.string().refine(isValidTimeZone),
  days: z.number().int().min(1).max(MAX_DIGEST_DAYS),
  skipEmpty: z.boolean(),
  createdBy: z.string(),
  createdAt: z.string(),
  status: z.enum(['active', 'failing']),
  failure: z.string().optional(),
  lastRun: z
    .object({ date: z.string(), at: z.string(), outcome: z.enum(['sent', 'skipped-empty', 'failed']) })
    .optional(),
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
}

export const DEFAULT_DIGEST_TIME = '09:00';

/**
 * A new subscription from what was asked: the time defaults to 09:00, the zone to the one the
 * person named, else their Slack zone (`personZone`), else UTC.
 */
export function newSubscription(
  options: DigestOnOptions,
  context: { channelId: string; userId: string; personZone: string | undefined; now: number },
): { subscription: Subscription; zoneSource: 'named' | 'person' | 'default' } {
  const zoneSource = options.timezone ? 'named' : context.personZone ? 'person' : 'default';
  return {
    subscription: {
      channelId: context.channelId,
      time: options.time ?? DEFAULT_DIGEST_TIME,
      timezone: options.timezone ?? context.personZone ?? 'UTC',
      days: options.days,
      skipEmpty: options.skipEmpty,
      createdBy: context.userId,
      createdAt: new Date(context.now).toISOString(),
      status: 'active',
    },
    zoneSource,
  };
}
