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
const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

export const subscriptionSchema = z.object({
  channelId: z.string().min(1),
  time: z.string().regex(TIME),
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
  const match = TIME.exec(time);
  return { hour: Number(match?.[1] ?? 0), minute: Number(match?.[2] ?? 0) };
}

export interface DigestOnArgs {
  time: string | undefined;
  timezone: string | undefined;
  days: number;
  skipEmpty: boolean;
}

/** `/events digest on [HH:MM] [zone] [--days N] [--skip-empty]`: the options or what is wrong. */
export function parseDigestOn(args: readonly string[]): DigestOnArgs | { problem: string } {
  const result: DigestOnArgs = { time: undefined, timezone: undefined, days: 1, skipEmpty: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--skip-empty') {
      result.skipEmpty = true;
    } else if (arg === '--days' || arg.startsWith('--days=')) {
      const value = arg.includes('=') ? arg.slice('--days='.length) : args[++i];
      const days = Number(value);
      if (!value || !Number.isInteger(days) || days < 1 || days > MAX_DIGEST_DAYS) {
        return { problem: `--days takes a whole number from 1 to ${MAX_DIGEST_DAYS} (got "${value ?? ''}").` };
      }
      result.days = days;
    } else if (/^\d{1,2}[:.h]\d{2}$/.test(arg)) {
      const normalised = arg.replace(/[.h]/, ':');
      if (!TIME.test(normalised)) return { problem: `"${arg}" is not a time of day (use HH:MM, 00:00 to 23:59).` };
      const { hour, minute } = timeOfDay(normalised);
      result.time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
    } else if (/^\d/.test(arg)) {
      return { problem: `"${arg.slice(0, 20)}" is not a time of day (use HH:MM, 00:00 to 23:59).` };
    } else if (isValidTimeZone(arg)) {
      result.timezone = arg;
    } else {
      return { problem: `"${arg.slice(0, 40)}" is not a timezone I know (use an IANA name such as Europe/Berlin).` };
    }
  }
  return result;
}
