import { isCancelled, isUpcoming } from '../catalog/is-upcoming.js';
import type { Comparables } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast.js';
import type { ReportRead } from '../reports/event-record.js';
import type { EventReport, TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { watchedEventInfo } from './event-dates.js';
import { crossedBeforeWatch } from './watch.js';
import { defaultConditions, exceptConditions, parseConditions } from './watch-condition.js';
import type { WatchRefusal, WatchResult, WatchService } from './watch-service.js';

/** What setting a watch needs besides the watch service: the report its conditions read, and the forecast. */
export interface SetWatchDeps {
  watches: Pick<WatchService<unknown>, 'watch' | 'wouldRefuse' | 'lastCheck' | 'observe'>;
  /** The report at hand, or one fetched in the person's turn (`fetching` tells them first). */
  reportToWatch(eventId: string, userId: string, fetching: () => Promise<unknown>): Promise<ReportRead>;
  /** The event's forecast from its stored history (no report call); undefined when none. */
  forecast(eventId: string, report: EventReport): Promise<Forecast | undefined>;
  /** Where the event stands against similar finished events (no report call); a `behind similar` already met starts crossed. */
  comparables?(eventId: string, report: EventReport): Promise<Comparables | undefined>;
  /** A watch was set: the scheduler looks again. */
  poke(): void;
  clock: Clock;
  logger: { warn(message: string, fields?: Record<string, unknown>): void };
}

export interface SetWatchRequest {
  /** The channel, or for a personal watch the person's id. */
  conversation: string;
  personal: boolean;
  event: TicketingEvent;
  /** The event named as the person reads it. */
  eventName: string;
  userId: string;
  /** The conditions as typed (and ticked); empty: the defaults the report allows. */
  conditions: string;
  /** Set in a channel shared with another organization, confirmed there. */
  sharedConfirmed: boolean;
  /** `--except`: words of promo codes or figures, or condition kinds, left out. */
  except?: readonly string[] | undefined;
}

/** How setting a watch came out, for the listener to say in its own way. */
export type SetWatchOutcome =
  | { kind: 'over' }
  /** The event is cancelled: nothing to watch, nothing was read. */
  | { kind: 'cancelled' }
  /** The words do not parse (or more than ten): no report was read. */
  | { kind: 'wording'; problem: string }
  /** The conversation or the person has as many watches as allowed: no report was read. */
  | { kind: 'refused'; refusal: WatchRefusal }
  /** The report cannot answer a condition named. */
  | { kind: 'conditions'; problem: string }
  /** No condition named, and the report allows none by default. */
  | { kind: 'nothing-to-watch' }
  | { kind: 'set'; result: WatchResult; alreadyCrossed: string[]; excepted?: string[] | undefined };

/**
 * Sets a watch, the steps the command and the form share, in their order: the event must not be
 * over, the words parse before anything is read, the limits refuse before a report is spent
 * (`stopBeforeReport` lets the caller stop there too: a channel shared with another
 * organization), the conditions are read against the report at hand or one fetched in the
 * person's turn (the forecast's from the stored history), the watch is set, and the report it was
 * read from is its first check, recorded as read when it was.
 */
export async function setWatch(
  deps: SetWatchDeps,
  request: SetWatchRequest,
  hooks: { fetching: () => Promise<unknown>; stopBeforeReport?: () => Promise<boolean> },
): Promise<SetWatchOutcome | undefined> {
  const { event } = request;
  if (isCancelled(event)) return { kind: 'cancelled' };
  if (!isUpcoming(event, deps.clock.now())) return { kind: 'over' };
  const text = request.conditions.trim();
  const wording = text ? parseConditions(text) : undefined;
  if (wording && 'problem' in wording) return { kind: 'wording', problem: wording.problem };
  if (await hooks.stopBeforeReport?.()) return undefined;
  const limited = await deps.watches.wouldRefuse({
    channel: request.conversation,
    userId: request.userId,
    eventId: event.id,
  });
  if (limited) return { kind: 'refused', refusal: limited };
  const read = await deps.reportToWatch(event.id, request.userId, hooks.fetching);
  const forecast = await deps.forecast(event.id, read.report).catch(() => undefined);
  const parsed = text
    ? parseConditions(text, read.report, forecast, event.startsAtMs)
    : { conditions: defaultConditions(read.report) };
  if ('problem' in parsed) return { kind: 'conditions', problem: parsed.problem };
  const { kept, excepted } = exceptConditions(parsed.conditions, request.except ?? []);
  if (kept.length === 0 && excepted.length > 0)
    return { kind: 'conditions', problem: `--except left out every condition (${excepted.join(', ')}).` };
  if (kept.length === 0) return { kind: 'nothing-to-watch' };
  const compared = kept.some((c) => c.kind === 'behind-similar')
    ? await deps.comparables?.(event.id, read.report).catch(() => undefined)
    : undefined;
  const result = await deps.watches.watch({
    channel: request.conversation,
    personal: request.personal,
    event: watchedEventInfo(event, request.eventName),
    userId: request.userId,
    conditions: kept,
    readFrom: read.report,
    ...(compared ? { comparedFrom: compared } : {}),
    forecastFrom: forecast,
    sharedConfirmed: !request.personal && request.sharedConfirmed,
  });
  if (result.refused) return { kind: 'refused', refusal: result.refused };
  await countAsFirstCheck(deps, event.id, read);
  deps.poke();
  const alreadyCrossed = result.watch.conditions
    .filter((state) => result.added.includes(state.key) && crossedBeforeWatch(state))
    .map((state) => state.key);
  return { kind: 'set', result, alreadyCrossed, ...(excepted.length > 0 ? { excepted } : {}) };
}

/**
 * A new watch's event not checked yet: the report its conditions were read from is its first
 * check, recorded as read when it was. Best effort: the scheduler checks it if this fails.
 */
async function countAsFirstCheck(deps: SetWatchDeps, eventId: string, read: ReportRead): Promise<void> {
  try {
    if (await deps.watches.lastCheck(eventId)) return;
    await deps.watches.observe(eventId, read.report, read.readAt);
  } catch (error) {
    deps.logger.warn('A new watch could not record its first check; the scheduler will check it', { eventId, error });
  }
}
