import { addDays, epochOfWallTime, formatPlainDate, type PlainDate, plainDateAt } from '../time/zoned.js';
import { type Subscription, timeOfDay } from './subscription.js';

export interface Fire {
  /** The subscription's local date this digest belongs to (`YYYY-MM-DD`). */
  date: string;
  /** The instant it is due. */
  at: number;
}

/** When the digest of `date` is due: the subscription's time of day on that date in its zone. */
export function fireOn(subscription: Pick<Subscription, 'time' | 'timezone'>, date: PlainDate): Fire {
  const { hour, minute } = timeOfDay(subscription.time);
  return {
    date: formatPlainDate(date),
    at: epochOfWallTime({ ...date, hour, minute, second: 0 }, subscription.timezone),
  };
}

/** The most recent digest due at or before `now` (today's if its time has come, else yesterday's). */
export function latestFire(subscription: Pick<Subscription, 'time' | 'timezone'>, now: number): Fire {
  const today = plainDateAt(now, subscription.timezone);
  const todays = fireOn(subscription, today);
  return todays.at <= now ? todays : fireOn(subscription, addDays(today, -1));
}

/** The next digest due after `now`. */
export function nextFire(subscription: Pick<Subscription, 'time' | 'timezone'>, now: number): Fire {
  const today = plainDateAt(now, subscription.timezone);
  const todays = fireOn(subscription, today);
  return todays.at > now ? todays : fireOn(subscription, addDays(today, 1));
}
