import { z } from 'zod';
import type { EventReport } from '../ticketing/schemas.js';
import type { Measured } from './similar-judgement.js';
import { describeCondition, type WatchCondition } from './watch-condition.js';

const conditionSchema: z.ZodType<WatchCondition> = z.union([
  z.object({ kind: z.literal('figure'), field: z.string(), op: z.enum(['>=', '<=']), value: z.number() }),
  z.object({ kind: z.literal('sold-share'), percent: z.number() }),
  z.object({ kind: z.literal('left'), code: z.string(), max: z.number(), unit: z.enum(['count', 'percent']) }),
  z.object({ kind: z.literal('sold-since'), count: z.number() }),
  z.object({ kind: z.literal('stall'), hours: z.number() }),
  z.object({ kind: z.literal('sold-out') }),
  z.object({ kind: z.literal('sells-out') }),
  z.object({ kind: z.literal('pace-below'), perDay: z.number() }),
  z.object({ kind: z.literal('pace-halves') }),
  z.object({ kind: z.literal('behind-similar') }),
  z.object({ kind: z.literal('flatline') }),
]);

const measuredSchema: z.ZodType<Measured> = z.union([
  z.object({
    kind: z.literal('behind-similar'),
    beforeMs: z.number(),
    share: z.number(),
    low: z.number(),
    median: z.number(),
    high: z.number(),
    count: z.number(),
  }),
  z.object({
    kind: z.literal('flatline'),
    spanMs: z.number(),
    expected: z.number(),
    chance: z.number(),
    count: z.number(),
  }),
]);

/** One condition of a watch and where it stands. */
export interface ConditionState {
  condition: WatchCondition;
  /** Its canonical text: its key within the watch. */
  key: string;
  /** Who asked for it. */
  addedBy: string;
  /** Fires at the next crossing; false once fired, until the figure has clearly cleared. */
  armed: boolean;
  /** How many times it has fired: names each crossing, so each is alerted once. */
  crossings: number;
  /** Its figure at the last check. */
  lastValue?: number | undefined;
  /** The check `lastValue` was read from (its `checkedAt`): a card says it only beside that same check. */
  valueAt?: number | undefined;
  /** Why the last report could not answer it. */
  unknown?: string | undefined;
  /** A forecast condition not judged yet: from about when its event's sales history allows it, and after what. */
  pending?: { from: number; after: string } | undefined;
  /** What a comparables condition measured at the last check (the similar events' range, a pause's odds). */
  measured?: Measured | undefined;
}

const conditionStateSchema = z.object({
  condition: conditionSchema,
  key: z.string(),
  addedBy: z.string(),
  armed: z.boolean(),
  crossings: z.number().int().nonnegative(),
  lastValue: z.number().optional(),
  valueAt: z.number().optional(),
  unknown: z.string().optional(),
  pending: z.object({ from: z.number(), after: z.string() }).optional(),
  measured: measuredSchema.optional(),
});

/** How a watch is quieted: stored on the watch (`Watch.quiet`; see `alert-quieting.ts`). */
export interface WatchQuiet {
  /** No alert from a check made before this (a snooze for a while). */
  snoozedUntil?: number | undefined;
  /** Only thresholds alert until one does; that ends the snooze. */
  untilThreshold?: true | undefined;
  /** Who snoozed it (the card says so). */
  snoozedBy?: string | undefined;
  /** Movement (sold since, no sale for) counts only from checks made at or after this: a snooze's end. */
  baselineAt?: number | undefined;
  /** People this channel watch no longer mentions or messages. */
  muted?: string[] | undefined;
}

export const watchQuietSchema = z.object({
  snoozedUntil: z.number().optional(),
  untilThreshold: z.literal(true).optional(),
  snoozedBy: z.string().optional(),
  baselineAt: z.number().optional(),
  muted: z.array(z.string()).optional(),
});

/** One watched event in one conversation: one live card, its alerts in the card's thread. */
export interface Watch {
  /** The channel, or for a personal watch the person's id (its DM). */
  channel: string;
  personal: boolean;
  eventId: string;
  eventName: string;
  /** When the event ends; the watch ends with it. */
  endsAtMs: number | undefined;
  /** The plain date an all-day event ends on (`YYYY-MM-DD`): shown as a date, never a reader-zone time. */
  endsOn?: string | undefined;
  /** When the event starts (events starting sooner are checked first). */
  startsAtMs: number | undefined;
  /** When the dates were read (a catalog's crawl): older catalogs, on a replica behind, do not move them back. */
  datesAsOf?: number | undefined;
  /** Who set the watch up (the card says so). */
  setBy: string;
  createdAt: number;
  conditions: ConditionState[];
  /** The card's message, once posted. */
  cardTs?: string | undefined;
  /**
   * Set in a channel shared with another organization after the person confirmed it there: its
   * figures may go to that channel. Without it, a channel found shared pauses the watch.
   */
  sharedConfirmed?: true | undefined;
  /** The channel refused a post: no more checks here until the watch is set again. */
  paused?: { reason: string; at: number } | undefined;
  /** Snoozed, muted by some: see `alert-quieting.ts`. */
  quiet?: WatchQuiet | undefined;
}

export const watchSchema = z.object({
  channel: z.string(),
  personal: z.boolean(),
  eventId: z.string(),
  eventName: z.string(),
  endsAtMs: z.number().optional(),
  endsOn: z.string().optional(),
  startsAtMs: z.number().optional(),
  datesAsOf: z.number().optional(),
  setBy: z.string(),
  createdAt: z.number(),
  conditions: z.array(conditionStateSchema),
  cardTs: z.string().optional(),
  sharedConfirmed: z.literal(true).optional(),
  paused: z.object({ reason: z.string(), at: z.number() }).optional(),
  quiet: watchQuietSchema.optional(),
});

/** What the last check of an event found: shared by every watch of the event. */
export interface EventCheck {
  eventId: string;
  /** When the last report was read (a watch's check or a person's report). */
  checkedAt: number;
  report: EventReport;
  /** Sold at the check before, for "sold since the last check". */
  previousSold: number | undefined;
  /** When the check before was made: a watch compares movement only with checks made while it existed. */
  previousCheckedAt?: number | undefined;
  /** When sold was last seen to rise. */
  lastSaleAt: number | undefined;
  /** Checks so far. */
  checks: number;
}

export const eventCheckSchema = z.object({
  eventId: z.string(),
  checkedAt: z.number(),
  report: z.record(z.string(), z.unknown()),
  previousSold: z.number().optional(),
  previousCheckedAt: z.number().optional(),
  lastSaleAt: z.number().optional(),
  checks: z.number().int().nonnegative(),
});

/** A fresh condition, armed. */
export function newConditionState(condition: WatchCondition, addedBy: string): ConditionState {
  return { condition, key: describeCondition(condition), addedBy, armed: true, crossings: 0 };
}

/** The watch's key in the store. */
export const watchKey = (channel: string, eventId: string) => `watch:${channel}:${eventId}`;

/** Disarmed with no crossing counted: met when the watch was set, so never alerted (a fired condition has one). */
export const crossedBeforeWatch = (state: Pick<ConditionState, 'armed' | 'crossings'>) =>
  !state.armed && state.crossings === 0;
