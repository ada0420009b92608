import { calendarDays, type DayEntry, eventsByDay } from '../catalog/calendar-days.js';
import type { EventCatalog } from '../catalog/event-catalog.js';
import { searchEvents } from '../catalog/event-search.js';
import type { Shown } from '../figures/may-show-figures.js';
import type { Comparables } from '../forecast/comparables.js';
import type { FinishedEvent } from '../forecast/forecast.js';
import { firstSince, type SalesDigestEntry, salesDigestEntries } from '../forecast/sales-digest.js';
import type { SalesHistory } from '../history/sales-history.js';
import type { SalesPoint } from '../history/sales-point.js';
import type { Clock } from '../time/clock.js';
import { parsePlainDate } from '../time/zoned.js';
import type { Fire } from './fire-times.js';
import type { Subscription } from './subscription.js';

/**
 * What one run of a digest posts, for its subscription and date: one strategy a kind of digest
 * (the events of the coming days, or the watched events' sales), the same runner for both.
 * `events` is how many things it lists (none: a digest that skips empty ones posts nothing).
 */
export interface DigestComposer<M> {
  compose(subscription: Subscription, fire: Fire): Promise<{ message: M; events: number }>;
}

/** The event digest: the events of the subscription's days (whole days in its zone), named like its `match`. */
export function eventDigestComposer<M>(options: {
  catalog: Pick<EventCatalog, 'all'>;
  digest: (input: { entries: DayEntry[]; days: number; date: string }) => M;
  clock: Clock;
}): DigestComposer<M> {
  return {
    async compose(subscription, fire) {
      const date = parsePlainDate(fire.date);
      if (!date) throw new Error(`not a date: ${fire.date}`);
      const days = calendarDays(date, subscription.days, subscription.timezone);
      const all = await options.catalog.all();
      const chosen = subscription.match ? searchEvents(all, subscription.match).map((match) => match.event) : all;
      const entries = eventsByDay(chosen, days, subscription.timezone, options.clock.now());
      return { message: options.digest({ entries, days: subscription.days, date: fire.date }), events: entries.length };
    },
  };
}

/** An event watched in a conversation, as the sales digest needs it. */
export interface WatchedEvent {
  eventId: string;
  eventName: string;
  /** When it starts, as the watch knows it (else the history's). */
  startsAtMs: number | undefined;
}

/** What a sales digest message is drawn from (see `salesDigestMessage`). */
export interface SalesDigestMessageInput {
  entries: readonly SalesDigestEntry[];
  cadence: 'daily' | 'weekly';
  since: number;
  now: number;
}

/**
 * The sales digest: each event watched in the subscription's conversation (a person's own watches
 * for a personal one), its sales since the previous sales digest (or a day or a week back on the
 * first), its pace and forecast, from the stored history only: no report call is made for it.
 */
export function salesDigestComposer<M>(options: {
  /**
   * The events watched in a conversation (a channel, or a person's id for their own watches) whose
   * figures the figures rule lets go there: only those are read and shown.
   */
  watched: (conversation: string) => Promise<Shown<WatchedEvent>[]>;
  history: Pick<SalesHistory, 'read'>;
  /** The finished events a forecast learns from (the sales insights' own, read again at most every 10 minutes). */
  finished: (now: number) => Promise<FinishedEvent[]>;
  /** Where an event stands against similar finished events (the sales insights' `comparablesOf`). */
  comparables?: (
    event: { eventId: string; startsAtMs: number; points: readonly SalesPoint[] },
    now: number,
  ) => Promise<Comparables>;
  message: (input: SalesDigestMessageInput) => M;
  clock: Clock;
}): DigestComposer<M> {
  return {
    async compose(subscription, _fire) {
      const now = options.clock.now();
      const cadence = subscription.cadence ?? 'daily';
      const previous = subscription.lastSentAt ? Date.parse(subscription.lastSentAt) : Number.NaN;
      const since = Number.isFinite(previous) && previous < now ? previous : firstSince(now, cadence);
      const seen = new Set<string>();
      const events: Parameters<typeof salesDigestEntries>[0]['events'][number][] = [];
      for (const watch of await options.watched(subscription.channelId)) {
        if (seen.has(watch.eventId)) continue;
        seen.add(watch.eventId);
        const history = await options.history.read(watch.eventId);
        const startsAtMs = watch.startsAtMs ?? history.startsAtMs;
        if (startsAtMs === undefined) continue;
        events.push({
          eventId: watch.eventId,
          eventName: watch.eventName,
          startsAtMs,
          capacity: history.points.at(-1)?.capacity,
          points: history.points,
        });
      }
      const entries = salesDigestEntries({ now, since, events, finished: await options.finished(now) });
      const compare = options.comparables;
      if (compare) for (const entry of entries) entry.comparables = await compare(entry, now).catch(() => undefined);
      return { message: options.message({ entries, cadence, since, now }), events: entries.length };
    },
  };
}
