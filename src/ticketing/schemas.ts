import { z } from 'zod';
import { addDays, isValidTimeZone, type PlainDate, parsePlainDate, startOfDay } from '../time/zoned.js';
import { normaliseApiId } from './ids.js';

/*
 * Response shapes. `z.object` drops unknown keys, so fields added inside v1 never break parsing
 * (spec 9 rule 3). Only what the spec states is required; everything else is best-effort and
 * falls back to `undefined` rather than failing the record.
 */

const instant = z.iso.datetime({ offset: true });
const plainDate = z.iso.date();

/** Best-effort optional text: a wrong type reads as absent instead of failing the record. */
const optionalText = z.string().trim().min(1).optional().catch(undefined);

/** When an event starts or ends: an instant with offset, or a plain `YYYY-MM-DD` (spec 2.2 rule 3). */
export type EventMoment =
  | { kind: 'instant'; iso: string; epochMs: number }
  | { kind: 'date'; date: PlainDate; iso: string };

/** An event as the rest of eventops sees it. */
export interface TicketingEvent {
  id: string;
  name: string | undefined;
  status: string | undefined;
  timezone: string;
  start: EventMoment;
  end: EventMoment;
  /** First instant of the event (a plain date starts at the zone's midnight). */
  startsAtMs: number;
  /** Last instant of the event (a plain end date lasts until the zone's next midnight). */
  endsAtMs: number;
  url: string | undefined;
  venue: string | undefined;
  currency: string | undefined;
}

function moment(text: string): EventMoment {
  const date = parsePlainDate(text);
  if (date) return { kind: 'date', date, iso: text };
  return { kind: 'instant', iso: text, epochMs: Date.parse(text) };
}

const venueSchema = z
  .union([z.string(), z.object({ name: z.string().optional(), city: z.string().optional() })])
  .optional()
  .catch(undefined)
  .transform((venue) => {
    if (venue === undefined || typeof venue === 'string') return venue?.trim() || undefined;
    return [venue.name, venue.city].filter((part) => part?.trim()).join(', ') || undefined;
  });

export const eventSchema = z
  .object({
    id: z.string().min(1),
    startDate: z.union([instant, plainDate]),
    endDate: z.union([instant, plainDate]),
    timezone: z.string().refine(isValidTimeZone, { message: 'not an IANA timezone this runtime knows' }),
    name: optionalText,
    title: optionalText,
    status: optionalText,
    url: optionalText,
    currency: optionalText,
    venue: venueSchema,
  })
  .transform((raw, ctx): TicketingEvent => {
    const start = moment(raw.startDate);
    const end = moment(raw.endDate);
    const startsAtMs = start.kind === 'instant' ? start.epochMs : startOfDay(start.date, raw.timezone);
    const endsAtMs = end.kind === 'instant' ? end.epochMs : startOfDay(addDays(end.date, 1), raw.timezone);
    if (endsAtMs < startsAtMs) {
      ctx.addIssue({ code: 'custom', message: 'endDate is before startDate', path: ['endDate'] });
    }
    return {
      id: normaliseApiId('event', raw.id),
      name: raw.name ?? raw.title,
      status: raw.status?.toLowerCase(),
      timezone: raw.timezone,
      start,
      end,
      startsAtMs,
      endsAtMs,
      url: raw.url,
      venue: raw.venue,
      currency: raw.currency,
    };
  });

/** The list envelope (spec 2.5); records are validated one by one so one bad record costs only itself. */
export const listEnvelopeSchema = z.object({
  data: z.array(z.unknown()),
  pagination: z
    .object({
      nextCursor: z.string().nullish().catch(undefined),
      hasMore: z.boolean().catch(false),
    })
    .optional(),
});

/** The 429 body (spec 7); other statuses' bodies are not shown, so this is read best-effort for any error. */
export const errorBodySchema = z.object({
  error: z.string().optional().catch(undefined),
  message: z.string().optional().catch(undefined),
  statusCode: z.number().optional().catch(undefined),
});

export interface PromoCode {
  id: string;
  quantity: number;
  code: string | undefined;
}

/** The promo update's response body is not shown (spec 4.2 note 3): id and quantity if present. */
export const promoSchema = z
  .object({
    id: z.string().min(1).optional().catch(undefined),
    quantity: z.number().optional().catch(undefined),
    code: optionalText,
  })
  .catch({ id: undefined, quantity: undefined, code: undefined });

/** A report's body is not shown (spec 4.2 note 2): kept as the JSON object it is. */
export const reportSchema = z.record(z.string(), z.unknown());
export type EventReport = z.infer<typeof reportSchema>;
