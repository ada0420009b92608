import type { Shown, Withheld } from '../figures/may-show-figures.js';
import type { Spread } from '../forecast/comparables.js';
import type { SalesInsight } from '../forecast/sales-insights.js';
import type { TrackRecord } from '../forecast/track-record.js';
import { quantityRows, topFigures } from '../reports/report-figures.js';
import type { EventReport, TicketingEvent } from '../ticketing/schemas.js';

/**
 * The plain text an MCP tool answers with (agents read text, not Block Kit). Pure. Text from
 * outside (event names, report labels) has its angle brackets replaced, so an agent that posts
 * the answer into Slack carries no mention, `<!channel>` or link from it.
 */
export const plain = (text: string, max = 200): string =>
  text
    .replace(/[<>]/g, (bracket) => (bracket === '<' ? '‹' : '›'))
    .replace(/[\r\n\t]+/g, ' ')
    .slice(0, max);

/** An event as a tool's structured content names it. */
export function eventFacts(event: TicketingEvent) {
  return {
    id: event.id,
    name: event.name === undefined ? undefined : plain(event.name),
    status: event.status,
    startsAt: new Date(event.startsAtMs).toISOString(),
    endsAt: new Date(event.endsAtMs).toISOString(),
    timezone: event.timezone,
    venue: event.venue === undefined ? undefined : plain(event.venue),
  };
}

/** One line per event: its name, id and start. */
export function eventLines(events: readonly TicketingEvent[]): string {
  return events
    .map(
      (event) => `- ${plain(event.name ?? event.id)} (${event.id}), starts ${new Date(event.startsAtMs).toISOString()}`,
    )
    .join('\n');
}

/** Why figures are not in an answer, in words: the token's person may not read them. */
export function withheldWords(withheld: Withheld): string {
  switch (withheld.why) {
    case 'guest':
      return 'No figures: this Slack account is a guest of the workspace, and guests do not see sales.';
    case 'stranger':
      return 'No figures: this Slack account belongs to another organization.';
    case 'not-known':
      return 'No figures: Slack could not say who this account is, so figures are held back.';
    case 'shared':
    case 'guests-in-room':
    case 'members-unread':
      return 'No figures: they are not shown where this answer goes.';
  }
}

/** A report's figures: its top-level numbers and its promo codes' quantities. */
export function reportText(label: string, report: Shown<EventReport>): string {
  const figures = topFigures(report).map(([name, value]) => `${plain(name, 60)}: ${value}`);
  const promos = quantityRows(report).map(
    (row) => `promo ${plain(row.label, 64)}: quantity ${row.quantity}, redeemed ${row.redeemed}`,
  );
  return [`Report for ${plain(label)}:`, ...figures, ...promos].join('\n');
}

const rounded = (value: number | undefined) => (value === undefined ? 'not known yet' : String(Math.round(value)));

/** The event's pace and sell-out forecast. */
export function forecastText(label: string, insight: Shown<SalesInsight>): string {
  const { forecast } = insight;
  const pace = `Pace: ${rounded(forecast.pace.perHourLastDay)} a hour over the last day, ${rounded(forecast.pace.perDayLastWeek)} a day over the last week.`;
  if (forecast.kind === 'none')
    return [`Sales of ${plain(label)}:`, pace, `No forecast yet: ${plain(forecast.reason)}.`].join('\n');
  const { atStart, sellOut } = forecast;
  return [
    `Sales of ${plain(label)}: ${forecast.sold} sold${forecast.capacity === undefined ? '' : ` of ${forecast.capacity}`}.`,
    pace,
    `Forecast at the start: ${atStart.likely} (between ${atStart.low} and ${atStart.high}), by ${forecast.method}.`,
    sellOut
      ? `Likely to sell out ${new Date(sellOut.likely).toISOString()}.`
      : 'Not likely to sell out before the start.',
  ].join('\n');
}

const percent = (share: number) => `${Math.round(share * 100)}%`;
/** "24-40%", or "31%" when the lowest and the highest round alike. */
const rangeOf = (spread: Spread) =>
  Math.round(spread.low * 100) === Math.round(spread.high * 100)
    ? percent(spread.low)
    : `${Math.round(spread.low * 100)}-${percent(spread.high)}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
/** "21 days to go", "5 hours to go" (hours under two days), as the report says it. */
const toGo = (beforeMs: number) =>
  beforeMs < 2 * DAY
    ? `${count(Math.max(1, Math.round(beforeMs / HOUR)), 'hour')} to go`
    : `${count(Math.round(beforeMs / DAY), 'day')} to go`;

/**
 * Where the event stands against the organization's similar finished events, in the words the
 * report uses (`render/comparables-words.ts`, there in Slack markup): "38% sold with 21 days to go;
 * similar events were at 24-40% (median 31%) then, and ended at 78-100% (5 events)."; with too few,
 * how many it needs.
 */
export function comparisonText(insight: Shown<SalesInsight>): string {
  const compared = insight.comparables;
  if (compared.kind === 'none') return `No comparison with similar events: ${plain(compared.reason)}.`;
  const here = `${percent(compared.share)} sold with ${toGo(compared.beforeMs)}`;
  if (compared.kind === 'too-few') {
    const found =
      compared.found === 0
        ? 'no similar finished event reaches back this far'
        : `only ${count(compared.found, 'similar finished event')} ${compared.found === 1 ? 'reaches' : 'reach'} back this far`;
    return `${here}; ${found}: comparing with similar events needs ${compared.needs}.`;
  }
  const alike = `${compared.alike.includes('venue') ? ' at the same venue' : ''}${compared.alike.includes('weekday') ? ' on the same weekday' : ''}`;
  const { atThisPoint: then, final } = compared;
  return `${here}; similar events${alike} were at ${rangeOf(then)} (median ${percent(then.median)}) then, and ended at ${rangeOf(final)} (${count(compared.count, 'event')}).`;
}

/** The comparison as a tool's structured content: shares of capacity from 0 to 1. */
export function comparisonFacts(insight: Shown<SalesInsight>) {
  const compared = insight.comparables;
  if (compared.kind === 'none') return { kind: compared.kind, reason: plain(compared.reason) };
  const daysToGo = Math.round((compared.beforeMs / DAY) * 10) / 10;
  if (compared.kind === 'too-few')
    return { kind: compared.kind, share: compared.share, daysToGo, found: compared.found, needs: compared.needs };
  const spread = ({ low, median, high }: Spread) => ({ low, median, high });
  return {
    kind: compared.kind,
    share: compared.share,
    daysToGo,
    events: compared.count,
    atThisPoint: spread(compared.atThisPoint),
    final: spread(compared.final),
    alike: compared.alike,
  };
}

/** The forecast's track record on finished events. */
export function trackRecordText(record: Shown<TrackRecord>): string {
  if (record.forecasts === 0) return 'No finished event has a sales history yet: the forecast has no track record.';
  const error = record.meanError === undefined ? 'not known' : `${(record.meanError * 100).toFixed(1)}% of capacity`;
  const coverage = record.coverage === undefined ? 'not known' : `${Math.round(record.coverage * 100)}%`;
  return `The forecast on the last ${record.events.length} finished events: ${record.forecasts} forecasts, mean error ${error}, range held the outcome ${coverage} of the time.`;
}
