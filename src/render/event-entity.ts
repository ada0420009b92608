import type { types } from '@slack/bolt';
import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { Comparables } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast-types.js';
import { fieldKey, quantityRows, topFigures } from '../reports/report-figures.js';
import type { EventReport, TicketingEvent } from '../ticketing/schemas.js';
import { comparablesWords } from './comparables-words.js';
import { eventLabel } from './event-blocks.js';
import { describeEventTime } from './event-time.js';
import { clip, escapeText, type Mrkdwn } from './mrkdwn.js';
import { formatNumber, humanise, reportCurrency } from './report-blocks.js';
import { forecastWords } from './sales-blocks.js';
import { withheldWords } from './withheld-words.js';

/**
 * An event as a Work Object: the card everyone in a conversation sees (`chat.unfurl` metadata) and
 * the flexpane one person opens from it (`entity.presentDetails`). Outside text (names, venues,
 * statuses) is escaped as everywhere else (`escapeText`), so no `<...>` of theirs reaches Slack;
 * the bot's own mrkdwn words are given with their date tokens read as their fallbacks.
 */

/** The generic entity: an event is none of Slack's files, tasks, incidents or content items. */
export const EVENT_ENTITY_TYPE = 'slack#/entities/item';
/** The `external_ref.type` of an event; its id is the event's (`evt_…`). */
export const EVENT_REF_TYPE = 'event';

/** The flexpane's buttons; each carries the event's id as its value. */
export const ENTITY_REPORT_ACTION = 'entity_event_report';
export const ENTITY_WATCH_ACTION = 'entity_event_watch';
export const ENTITY_PROMO_ACTION = 'entity_event_promo';

/** Longest text a field value is given (Slack clips long values; ours stay readable). */
const MAX_VALUE = 500;

export interface EventEntityInput {
  event: TicketingEvent;
  /** The link as posted (`app_unfurl_url`): Slack matches the card to it. */
  postedUrl: string;
  /** Now, for "on sale" (an event that ended is not). */
  now: number;
}

/** A report at hand with its forecast and where it stands against similar events. */
export interface FlexpaneReport {
  report: EventReport;
  readAt: number;
  forecast?: Forecast | undefined;
  comparables?: Comparables | undefined;
}

/** What the flexpane shows of figures, as the figures rule and the report at hand allow. */
export type FlexpaneFigures =
  /** A report at hand the rule let through for this person, with its insight and whether a fresher one was queued. */
  | {
      kind: 'shown';
      figures: Shown<FlexpaneReport>;
      refreshing: boolean;
    }
  /** The rule holds them back from this person: the card's fields and why. */
  | { kind: 'withheld'; withheld: Withheld }
  /** Nothing fresh enough at hand: a report was queued (or could not be) for this person. */
  | { kind: 'none'; queued: boolean };

export interface EventDetailsInput extends EventEntityInput {
  figures: FlexpaneFigures;
  /** The person may change promo quantities (PROMO_EDITORS). */
  editor: boolean;
}

type CustomField = types.EntityCustomField;

/** Outside text, escaped and clipped (a field holds a line or two, not a page). */
const outside = (text: string, max = MAX_VALUE): string => clip(text, max);

/** The bot's own mrkdwn as a field's text: a date token or a link reads as its fallback or label. */
function wordsOf(text: Mrkdwn): string {
  return text.replace(/<!date\^[^|>]*\|([^>]*)>/g, '$1').replace(/<[^|>]*\|([^>]*)>/g, '$1');
}

/** Where the card leads: the event's own page when the API gives a plain http(s) one, else the link as posted. */
function pageUrl(event: TicketingEvent, postedUrl: string): string {
  const plain = (url: string | undefined) => url !== undefined && /^https?:\/\/[^\s<>|"]+$/i.test(url);
  if (plain(event.url)) return event.url as string;
  return postedUrl.replace(/[\s<>|"]/g, encodeURIComponent);
}

/** On sale: published (or live) and not over. Anything else says why not. */
function saleWords(event: TicketingEvent, now: number): string {
  if (event.endsAtMs <= now) return 'Not on sale: the event is over';
  const status = event.status ?? 'published';
  if (status === 'published' || status === 'live') return 'On sale';
  return `Not on sale: ${outside(status, 40)}`;
}

/** The card's fields: when (the event's zone, and each reader's through Slack's timestamp), where, on sale. */
function cardFields(event: TicketingEvent, now: number): CustomField[] {
  const fields: CustomField[] = [
    { key: 'when', label: 'When (event time)', type: 'string', value: escapeText(describeEventTime(event)) },
  ];
  // Slack shows a timestamp in each reader's own zone: "the reader's time" with no lookup of ours.
  if (event.start.kind === 'instant')
    fields.push({
      key: 'starts',
      label: 'Starts (your time)',
      type: 'slack#/types/timestamp',
      value: Math.floor(event.startsAtMs / 1000),
    });
  if (event.venue) fields.push({ key: 'venue', label: 'Venue', type: 'string', value: outside(event.venue, 200) });
  // Labelled by what it tells, so the card reads "Tickets: On sale", never "On sale On sale".
  fields.push({ key: 'on_sale', label: 'Tickets', type: 'string', value: saleWords(event, now) });
  fields.push({ key: 'event_id', label: 'Event id', type: 'string', value: escapeText(event.id) });
  return fields;
}

function entity(input: EventEntityInput, fields: CustomField[]): types.EntityMetadata {
  const { event } = input;
  return {
    entity_type: EVENT_ENTITY_TYPE,
    url: pageUrl(event, input.postedUrl),
    app_unfurl_url: input.postedUrl,
    // Slack hands the ref back on a click: an id that is not a plain one goes encoded.
    external_ref: { id: /^[\w-]+$/.test(event.id) ? event.id : encodeURIComponent(event.id), type: EVENT_REF_TYPE },
    entity_payload: {
      attributes: {
        title: { text: outside(eventLabel(event), 200) },
        display_type: 'Event',
        product_name: 'eventops',
      },
      custom_fields: fields,
      display_order: fields.map((field) => field.key),
    },
  };
}

/**
 * The card an event page link unfolds into, seen by everyone in the conversation: the event, its
 * time in its zone and each reader's, its venue, and whether it is on sale. It takes no report: no
 * figure can reach it (sold, capacity, revenue, promo codes live in the flexpane).
 */
export function eventEntity(input: EventEntityInput): types.EntityMetadata {
  return entity(input, cardFields(input.event, input.now));
}

/** "read 4 minutes ago": how old the figures are, in words. */
function ageWords(readAt: number, now: number): string {
  const minutes = Math.max(0, Math.floor((now - readAt) / 60_000));
  if (minutes < 1) return 'read less than a minute ago';
  if (minutes < 120) return `read ${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.floor(minutes / 60);
  return `read ${hours} hours ago`;
}

function figureFieldsOf(
  figures: Shown<FlexpaneReport>,
  event: TicketingEvent,
  refreshing: boolean,
  now: number,
): CustomField[] {
  const { report, readAt, forecast, comparables } = figures;
  const currency = reportCurrency(report);
  const fields: CustomField[] = [
    {
      key: 'figures_age',
      label: 'Figures',
      type: 'string',
      value: `As of ${new Date(readAt).toISOString().slice(0, 16).replace('T', ' ')} UTC, ${ageWords(readAt, now)}${
        refreshing ? ' (a fresher report was asked for: press this panel’s refresh button in a minute)' : ''
      }`,
    },
    {
      key: 'figures_read_at',
      label: 'Figures read at',
      type: 'slack#/types/timestamp',
      value: Math.floor(readAt / 1000),
    },
  ];
  const used = new Set<string>();
  for (const [name, value] of topFigures(report).slice(0, 8)) {
    const key = `figure_${fieldKey(name)}`.slice(0, 60);
    if (used.has(key)) continue;
    used.add(key);
    fields.push({
      key,
      label: outside(humanise(name), 60),
      type: 'string',
      value: escapeText(formatNumber(name, value, currency)),
    });
  }
  const promos = quantityRows(report);
  if (promos.length > 0)
    fields.push({
      key: 'promo_codes',
      label: 'Promo codes',
      type: 'string',
      long: true,
      value: clip(
        promos.map((row) => `${row.label}: ${row.redeemed} of ${row.quantity} redeemed`).join('; '),
        MAX_VALUE,
      ),
    });
  if (forecast)
    fields.push({
      key: 'forecast',
      label: 'Pace and forecast',
      type: 'string',
      long: true,
      value: wordsOf(forecastWords(forecast, event.startsAtMs)),
    });
  const standing = comparables ? comparablesWords(comparables) : undefined;
  if (standing)
    fields.push({
      key: 'similar_events',
      label: 'Against similar events',
      type: 'string',
      long: true,
      value: wordsOf(standing),
    });
  return fields;
}

const NO_FIGURES_AT_HAND =
  'No figures read recently are at hand, so none are shown yet: a report was asked for in your turn. Press this panel’s refresh button in a minute to see it (opening the panel again shows it as it was), or press Report to have it in your DM when it comes.';
const NO_REPORT_QUEUED =
  'No figures read recently are at hand, and no report could be asked for just now. Press Report to have one in your DM.';

/**
 * The flexpane for one person: the card's fields, then the figures the rule let through for them
 * (with how old they are), or a sentence saying why there are none; Report and Watch for those who
 * may read figures, and Change promo quantity for promo editors.
 */
export function eventDetailsEntity(input: EventDetailsInput): types.EntityMetadata {
  const { event, figures, now } = input;
  const fields = cardFields(event, now);
  switch (figures.kind) {
    case 'shown':
      fields.push(...figureFieldsOf(figures.figures, event, figures.refreshing, now));
      break;
    case 'withheld':
      fields.push({
        key: 'figures_withheld',
        label: 'Sales and revenue',
        type: 'string',
        long: true,
        value: wordsOf(withheldWords(figures.withheld)),
      });
      break;
    case 'none':
      fields.push({
        key: 'figures_pending',
        label: 'Sales and revenue',
        type: 'string',
        long: true,
        value: figures.queued ? NO_FIGURES_AT_HAND : NO_REPORT_QUEUED,
      });
      break;
  }
  const metadata = entity(input, fields);
  if (figures.kind === 'withheld') return metadata;
  const button = (text: string, action_id: string): types.EntityActionButton => ({ text, action_id, value: event.id });
  metadata.entity_payload.actions = {
    primary_actions: [
      { ...button('Report', ENTITY_REPORT_ACTION), style: 'primary' },
      button('Watch', ENTITY_WATCH_ACTION),
    ],
    ...(input.editor ? { overflow_actions: [button('Change promo quantity', ENTITY_PROMO_ACTION)] } : {}),
  };
  return metadata;
}
