import { didYouMean } from '../catalog/did-you-mean.js';
import type { Shown } from '../figures/may-show-figures.js';
import type { Comparables } from '../forecast/comparables.js';
import type { Forecast } from '../forecast/forecast.js';
import {
  fieldKey,
  figureOf,
  findQuantityRow,
  quantityRows,
  soldFigure,
  soldOfCapacity,
  topFigures,
} from '../reports/report-figures.js';
import type { EventReport } from '../ticketing/schemas.js';
import { behindSimilar, flatline, type Measured } from './similar-judgement.js';

/**
 * What a watch listens for, built from what an event's report holds (its body is not specified:
 * conditions name the figures the report has, and a later report lacking one says so).
 */
export type WatchCondition =
  /** A top-level figure crosses a threshold: "ticketsSold >= 400". */
  | { kind: 'figure'; field: string; op: '>=' | '<='; value: number }
  /** Sold of capacity reaches a share: "sold >= 90%". */
  | { kind: 'sold-share'; percent: number }
  /** A promo code (a row with quantity and redeemed) runs low: "EARLYBIRD left <= 10" or "<= 10%". */
  | { kind: 'left'; code: string; max: number; unit: 'count' | 'percent' }
  /** Sales jump: at least N sold since the last check. */
  | { kind: 'sold-since'; count: number }
  /** Sales stall: no sale for this many hours. */
  | { kind: 'stall'; hours: number }
  | { kind: 'sold-out' }
  /** The forecast says it sells out before the event starts. */
  | { kind: 'sells-out' }
  /** Sales slow below a pace: sold per day over the last week (else the last day). */
  | { kind: 'pace-below'; perDay: number }
  /** The last day's pace is half the week before's or less. */
  | { kind: 'pace-halves' }
  /** Sold below the similar finished events' range at the same time before their start. */
  | { kind: 'behind-similar' }
  /** No sale for a span in which the similar events sold so much that a pause is unlikely. */
  | { kind: 'flatline' };

/** The figures of one check a condition is judged on. */
export interface Reading {
  report: EventReport;
  /** Sold at the previous check, when there was one that had it. */
  previousSold: number | undefined;
  /** When a sale was last seen (the check that first saw the figure rise). */
  lastSaleAt: number | undefined;
  now: number;
  /** The event's forecast from its sales history, for the conditions that read it. */
  forecast?: Forecast | undefined;
  /** When the event starts (the forecast's horizon), when known. */
  startsAtMs?: number | undefined;
  /** Where the event stands against its similar finished events, for the conditions that read it. */
  comparables?: Comparables | undefined;
}

/**
 * A projected sell-out alerts when it is at least this long before the start, and re-arms once
 * none is projected or it moves within `SELLS_OUT_CLEARS_MS` of the start: a forecast wobbling
 * around "just before the start" alerts once.
 */
const SELLS_OUT_MEETS_MS = 12 * 3_600_000;
const SELLS_OUT_CLEARS_MS = 6 * 3_600_000;

/**
 * One condition judged on one reading. `met`: past its threshold; `cleared`: clearly back on the
 * other side, by a margin (hysteresis), so a figure wobbling around a threshold fires once.
 */
export type Judgement =
  | { value: number; met: boolean; cleared: boolean; measured?: Measured | undefined }
  /**
   * Not known, with the reason. `pending`: a forecast condition not judged yet, whose event's sales
   * history will allow it from about `from`, after `after` ("3 reports over 6 hours").
   */
  | { unknown: string; pending?: Pending | undefined };

/** When a forecast condition can be judged: from about `from`, once the history holds `after`. */
export interface Pending {
  from: number;
  after: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The canonical text of a condition: what the card shows, and its key among a watch's conditions. */
export function describeCondition(condition: WatchCondition): string {
  switch (condition.kind) {
    case 'figure':
      return `${condition.field} ${condition.op} ${condition.value}`;
    case 'sold-share':
      return `sold >= ${condition.percent}%`;
    case 'left':
      return `${condition.code} left <= ${condition.max}${condition.unit === 'percent' ? '%' : ''}`;
    case 'sold-since':
      return `+${condition.count} sold since the last check`;
    case 'stall':
      return `no sale for ${condition.hours}h`;
    case 'sold-out':
      return 'sold out';
    case 'sells-out':
      return 'sells out before start';
    case 'pace-below':
      return `pace < ${condition.perDay}/day`;
    case 'pace-halves':
      return 'pace halves';
    case 'behind-similar':
      return 'behind similar';
    case 'flatline':
      return 'flatline';
  }
}

/** The conditions that read the forecast, not the report: offered only where the history can answer. */
export const FORECAST_KINDS: ReadonlySet<WatchCondition['kind']> = new Set(['sells-out', 'pace-below', 'pace-halves']);

const NO_FORECAST = 'the sales history is too short for a forecast yet';

/** The conditions that compare with the similar finished events: accepted wherever the report has the figures they read. */
export const COMPARABLES_KINDS: ReadonlySet<WatchCondition['kind']> = new Set(['behind-similar', 'flatline']);

/**
 * A forecast condition not judged yet: `what` (the forecast, the pace) comes at about `from`, after
 * `after`; unless that is past `latest` (the last moment it could still mean something before the
 * start), when it never can be judged.
 */
function notYet(what: string, from: number, after: string, latest: number | undefined): Judgement {
  if (latest !== undefined && from > latest)
    return { unknown: `the event starts before its sales history would hold ${after}` };
  return { unknown: `not judged yet: ${what} needs ${after}`, pending: { from, after } };
}

/** Sold per day now: over the last week, else the last day. */
const perDayNow = (forecast: Forecast) =>
  forecast.pace.perDayLastWeek ??
  (forecast.pace.perHourLastDay === undefined ? undefined : forecast.pace.perHourLastDay * 24);

const countMargin = (threshold: number) => Math.max(1, Math.ceil(Math.abs(threshold) * 0.02));
/** Percentage points a share must move back before its condition re-arms. */
const SHARE_MARGIN = 2;

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * The codes a report does name, for a person who named one it does not: the one they likely meant
 * first (`EARLYBRD`: did you mean EARLYBIRD?), where a field error cut short still shows it.
 */
function codesNamed(report: EventReport, typed: string): string {
  const labels = quantityRows(report).map((row) => row.label);
  if (labels.length === 0) return ' (it names no promo codes)';
  const meant = didYouMean(typed, labels);
  if (meant.length > 0) return `; did you mean ${meant.join(' or ')}? (it names ${labels.slice(0, 10).join(', ')})`;
  const more = labels.length > 10 ? `, and ${labels.length - 10} more` : '';
  return ` (it names ${labels.slice(0, 10).join(', ')}${more})`;
}

/** Judges a condition on a reading; a figure the report lacks makes it unknown, with the reason. */
export function judge(condition: WatchCondition, reading: Reading): Judgement {
  const { report } = reading;
  switch (condition.kind) {
    case 'figure': {
      const figure = figureOf(report, condition.field);
      if (!figure) return { unknown: `the report has no ${condition.field}` };
      const margin = countMargin(condition.value);
      return condition.op === '>='
        ? {
            value: figure.value,
            met: figure.value >= condition.value,
            cleared: figure.value < condition.value - margin,
          }
        : {
            value: figure.value,
            met: figure.value <= condition.value,
            cleared: figure.value > condition.value + margin,
          };
    }
    case 'sold-share': {
      const pair = soldOfCapacity(report);
      if (!pair) return { unknown: 'the report has no tickets sold of a capacity' };
      const share = round1((pair.sold / pair.capacity) * 100);
      return { value: share, met: share >= condition.percent, cleared: share < condition.percent - SHARE_MARGIN };
    }
    case 'left': {
      const row = findQuantityRow(report, condition.code);
      if (!row)
        return { unknown: `the report names no promo code ${condition.code}${codesNamed(report, condition.code)}` };
      if (condition.unit === 'count') {
        const margin = Math.max(1, Math.ceil(condition.max * 0.1));
        return { value: row.left, met: row.left <= condition.max, cleared: row.left > condition.max + margin };
      }
      if (row.quantity <= 0) return { unknown: `promo code ${condition.code} has no quantity` };
      const share = round1((row.left / row.quantity) * 100);
      return { value: share, met: share <= condition.max, cleared: share > condition.max + SHARE_MARGIN };
    }
    case 'sold-since': {
      const figure = soldFigure(report);
      if (!figure) return { unknown: 'the report has no tickets sold' };
      if (reading.previousSold === undefined) return { value: 0, met: false, cleared: true };
      const sold = figure.value - reading.previousSold;
      return { value: sold, met: sold >= condition.count, cleared: sold < condition.count };
    }
    case 'stall': {
      if (!soldFigure(report)) return { unknown: 'the report has no tickets sold' };
      if (reading.lastSaleAt === undefined) return { value: 0, met: false, cleared: true };
      const hours = round1((reading.now - reading.lastSaleAt) / HOUR_MS);
      const met = reading.now - reading.lastSaleAt >= condition.hours * HOUR_MS;
      return { value: hours, met, cleared: !met };
    }
    case 'sold-out': {
      const pair = soldOfCapacity(report);
      if (!pair) return { unknown: 'the report has no tickets sold of a capacity' };
      const left = Math.max(0, pair.capacity - pair.sold);
      return { value: left, met: left === 0, cleared: left >= Math.max(1, Math.ceil(pair.capacity * 0.01)) };
    }
    case 'sells-out': {
      const { forecast } = reading;
      if (forecast?.kind === 'none' && forecast.readyAt !== undefined && forecast.needs !== undefined) {
        if (!soldOfCapacity(report)) return { unknown: 'the report has no capacity to sell out' };
        const start = reading.startsAtMs;
        return notYet(
          'a forecast',
          forecast.readyAt,
          forecast.needs,
          start === undefined ? undefined : start - SELLS_OUT_MEETS_MS,
        );
      }
      if (forecast?.kind !== 'forecast')
        return { unknown: forecast?.kind === 'none' ? `${NO_FORECAST} (${forecast.reason})` : NO_FORECAST };
      if (forecast.capacity === undefined) return { unknown: 'the report has no capacity to sell out' };
      // Its value is the likely sell-out time; met when that is clearly before the start, cleared
      // once no sell-out is projected or it moved close to the start (a forecast moved later).
      const sellOut = forecast.sellOut;
      if (!sellOut) return { value: 0, met: false, cleared: true };
      const start = reading.startsAtMs;
      if (start === undefined) return { value: sellOut.likely, met: true, cleared: false };
      return {
        value: sellOut.likely,
        met: sellOut.likely <= start - SELLS_OUT_MEETS_MS,
        cleared: sellOut.likely > start - SELLS_OUT_CLEARS_MS,
      };
    }
    case 'pace-below': {
      const perDay = reading.forecast ? perDayNow(reading.forecast) : undefined;
      const since = reading.forecast?.pace.since;
      if (perDay === undefined && since !== undefined)
        return notYet('the pace', since + DAY_MS, 'a day of reports', reading.startsAtMs);
      if (perDay === undefined) return { unknown: NO_FORECAST };
      const value = round1(perDay);
      return { value, met: value < condition.perDay, cleared: value >= condition.perDay * 1.1 };
    }
    case 'pace-halves': {
      const pace = reading.forecast?.pace;
      if (
        pace &&
        (pace.perHourLastDay === undefined || pace.perDayWeekBefore === undefined) &&
        pace.since !== undefined
      )
        return notYet('the pace', pace.since + 8 * DAY_MS, '8 days of reports', reading.startsAtMs);
      if (!pace || pace.perHourLastDay === undefined || pace.perDayWeekBefore === undefined)
        return { unknown: 'the sales history does not reach back eight days yet' };
      if (pace.perDayWeekBefore <= 0) return { value: 1, met: false, cleared: true };
      // The last day's pace as a share of the week before's.
      const share = round1((pace.perHourLastDay * 24) / pace.perDayWeekBefore);
      return { value: share, met: share <= 0.5, cleared: share >= 0.6 };
    }
    case 'behind-similar':
      if (!soldOfCapacity(report)) return { unknown: 'the report has no tickets sold of a capacity' };
      return behindSimilar(reading.comparables);
    case 'flatline':
      if (!soldFigure(report)) return { unknown: 'the report has no tickets sold' };
      return flatline(reading);
  }
}

/**
 * Whether a report holds what a condition reads: undefined when it does, else why not. A forecast
 * condition the sales history will allow before the event starts (`startsAtMs`, when known) is
 * accepted: it is judged from then on.
 */
export function cannotCheck(
  condition: WatchCondition,
  report: EventReport,
  forecast?: Forecast,
  startsAtMs?: number,
): string | undefined {
  // Compared with similar events at each check: accepted wherever the report holds what they read.
  if (COMPARABLES_KINDS.has(condition.kind)) {
    if (condition.kind === 'behind-similar' && !soldOfCapacity(report))
      return 'the report has no tickets sold of a capacity';
    return soldFigure(report) ? undefined : 'the report has no tickets sold';
  }
  const judgement = judge(condition, {
    report,
    previousSold: undefined,
    lastSaleAt: undefined,
    now: 0,
    forecast,
    startsAtMs,
  });
  return 'unknown' in judgement && !judgement.pending ? judgement.unknown : undefined;
}

/** What a watch listens for when no condition is named: sell-out, 90% sold, promo codes at 10% left. */
export function defaultConditions(report: EventReport | undefined): WatchCondition[] {
  const conditions: WatchCondition[] = [{ kind: 'sold-share', percent: 90 }, { kind: 'sold-out' }];
  if (!report) return conditions;
  if (!soldOfCapacity(report)) conditions.length = 0;
  for (const row of quantityRows(report)
    .filter((r) => r.quantity > 0)
    .slice(0, 5))
    conditions.push({ kind: 'left', code: row.label, max: 10, unit: 'percent' });
  return conditions;
}

/**
 * Conditions a report (and, for the forecast's and the comparison's, the event's sales history)
 * allows, as examples for a person choosing (the modal's options, the parser's hints).
 */
export function conditionsOffered(
  report: Shown<EventReport>,
  forecast?: Forecast,
  comparables?: Comparables,
): WatchCondition[] {
  const offered: WatchCondition[] = [];
  const pair = soldOfCapacity(report);
  if (pair) {
    offered.push({ kind: 'sold-share', percent: 90 }, { kind: 'sold-out' });
    offered.push({ kind: 'sold-since', count: Math.max(10, Math.round(pair.capacity * 0.05)) });
    offered.push({ kind: 'stall', hours: 24 });
    // Offered where the organization has similar finished events to compare with now.
    if (comparables?.kind === 'compared') offered.push({ kind: 'behind-similar' }, { kind: 'flatline' });
  }
  // Not judged yet, but accepted: the history allows a forecast, or the pace, before long.
  if (forecast?.kind === 'none' && forecast.readyAt !== undefined && pair) offered.push({ kind: 'sells-out' });
  if (forecast?.kind === 'none' && forecast.pace.since !== undefined) offered.push({ kind: 'pace-halves' });
  if (forecast?.kind === 'forecast') {
    if (forecast.capacity !== undefined) offered.push({ kind: 'sells-out' });
    const perDay = perDayNow(forecast);
    if (perDay !== undefined) offered.push({ kind: 'pace-below', perDay: Math.max(1, Math.round(perDay / 2)) });
    if (forecast.pace.perDayWeekBefore !== undefined && forecast.pace.perHourLastDay !== undefined)
      offered.push({ kind: 'pace-halves' });
  }
  for (const row of quantityRows(report)
    .filter((r) => r.quantity > 0)
    .slice(0, 10)) {
    offered.push({ kind: 'left', code: row.label, max: 10, unit: 'percent' });
  }
  for (const [field, value] of topFigures(report).slice(0, 10)) {
    if (pair && (field === pair.soldField || fieldKey(field) === 'capacity')) continue;
    offered.push({ kind: 'figure', field, op: '>=', value: Math.max(1, Math.ceil(value * 1.2)) });
  }
  // Only what reads back as itself: the form sends the conditions' text, parsed again on submit
  // (a code with a space or a comma, a name with a hyphen, a ten-digit threshold would not).
  return offered.filter((condition) => {
    const again = parseConditions(describeCondition(condition), report, forecast);
    return 'conditions' in again && again.conditions.length === 1;
  });
}

export type ParsedConditions = { conditions: WatchCondition[] } | { problem: string };

const NUMBER = String.raw`(\d{1,9}(?:\.\d{1,2})?)`;
const CLAUSES: [RegExp, (match: RegExpMatchArray) => WatchCondition | string][] = [
  [/^sold[\s-]?out$/i, () => ({ kind: 'sold-out' })],
  [/^(?:sells?|will\s+sell)[\s-]?out\s+before(?:\s+the)?\s+(?:start|event)$/i, () => ({ kind: 'sells-out' })],
  [/^pace\s+halves$/i, () => ({ kind: 'pace-halves' })],
  [/^behind\s+similar(?:\s+events)?$/i, () => ({ kind: 'behind-similar' })],
  [/^(?:sales\s+)?flat[\s-]?line$/i, () => ({ kind: 'flatline' })],
  [
    new RegExp(String.raw`^pace\s*<\s*${NUMBER}\s*(?:/\s*day|a\s+day|per\s+day)$`, 'i'),
    (m) => {
      const perDay = Number(m[1]);
      return perDay > 0 ? { kind: 'pace-below', perDay } : 'a pace is more than 0 a day';
    },
  ],
  [
    new RegExp(String.raw`^(?:sold\s*>=\s*${NUMBER}\s*%|>=\s*${NUMBER}\s*%\s*sold|${NUMBER}\s*%\s*sold)$`, 'i'),
    (m) => {
      const percent = Number(m[1] ?? m[2] ?? m[3]);
      return percent > 0 && percent <= 100 ? { kind: 'sold-share', percent } : 'a share sold is from 1% to 100%';
    },
  ],
  [
    new RegExp(
      String.raw`^(?:promo\s+)?(\S{1,64})\s+(?:left\s*<=\s*${NUMBER}(%?)|(?:has\s+)?<=\s*${NUMBER}(%?)\s*left)$`,
      'i',
    ),
    (m) => {
      const max = Number(m[2] ?? m[4]);
      const unit = (m[3] ?? m[5]) === '%' ? 'percent' : 'count';
      if (unit === 'percent' && max > 100) return 'a share left is at most 100%';
      return { kind: 'left', code: m[1] as string, max, unit };
    },
  ],
  [
    /^(?:\+\s*|at\s+least\s+)(\d{1,9})(?:\s+sold)?(?:\s+since(?:\s+the)?\s+last\s+check)?$/i,
    (m) => {
      const count = Number(m[1]);
      return count >= 1 ? { kind: 'sold-since', count } : 'a jump in sales is at least +1 sold';
    },
  ],
  [
    new RegExp(String.raw`^(?:no\s+sales?\s+for|stall(?:ed)?(?:\s+for)?)\s*${NUMBER}\s*(?:h|hours?)$`, 'i'),
    (m) => {
      const hours = Number(m[1]);
      return hours >= 1 && hours <= 24 * 30 ? { kind: 'stall', hours } : 'a stall lasts from 1 to 720 hours';
    },
  ],
  [
    new RegExp(String.raw`^([A-Za-z][A-Za-z0-9 _]{0,63}?)\s*(>=|<=)\s*${NUMBER}$`),
    (m) => ({ kind: 'figure', field: (m[1] as string).trim(), op: m[2] as '>=' | '<=', value: Number(m[3]) }),
  ],
];

/** At most this many conditions in one watch. */
export const MAX_CONDITIONS = 10;

/**
 * Reads conditions separated by commas ("sold >= 90%, EARLYBIRD left <= 10, +50 sold, no sale for
 * 6h, sold out, checkIns >= 100"). With `report`, only conditions it can check are accepted.
 */
export function parseConditions(
  text: string,
  report?: EventReport,
  forecast?: Forecast,
  startsAtMs?: number,
): ParsedConditions {
  const clauses = text
    .split(/[,;]/)
    .map((clause) => clause.trim().replace(/\s+/g, ' '))
    .filter(Boolean);
  if (clauses.length > MAX_CONDITIONS) return { problem: `A watch takes at most ${MAX_CONDITIONS} conditions.` };
  const conditions: WatchCondition[] = [];
  for (const clause of clauses) {
    let parsed: WatchCondition | string | undefined;
    for (const [pattern, build] of CLAUSES) {
      const match = clause.match(pattern);
      if (match) {
        parsed = build(match);
        break;
      }
    }
    const shown = clause.slice(0, 60);
    if (parsed === undefined) return { problem: `"${shown}" is not a condition I know.` };
    if (typeof parsed === 'string') return { problem: `"${shown}": ${parsed}.` };
    if (report) {
      const reason = cannotCheck(parsed, report, forecast, startsAtMs);
      if (reason) return { problem: `"${shown}" cannot be checked: ${reason}.` };
      // The figure's name as the report spells it.
      if (parsed.kind === 'figure')
        parsed = { ...parsed, field: figureOf(report, parsed.field)?.field ?? parsed.field };
      if (parsed.kind === 'left')
        parsed = { ...parsed, code: findQuantityRow(report, parsed.code)?.label ?? parsed.code };
    }
    if (!conditions.some((c) => describeCondition(c) === describeCondition(parsed))) conditions.push(parsed);
  }
  return { conditions };
}

/** Condition kinds by the words `--except` takes for them. */
const KINDS_BY_WORD: Record<string, readonly WatchCondition['kind'][]> = {
  promo: ['left'],
  promos: ['left'],
  sold: ['sold-share', 'sold-out'],
  jump: ['sold-since'],
  stall: ['stall'],
  pace: ['pace-below', 'pace-halves'],
  similar: ['behind-similar', 'flatline'],
  behind: ['behind-similar'],
  flatline: ['flatline'],
  forecast: ['sells-out'],
  figures: ['figure'],
};

/**
 * The conditions `--except` leaves out: a word is a kind of condition (`promo`, `pace`, ...), or
 * a word of a promo code's or a figure's name (any case); `excepted` names what was left out.
 */
export function exceptConditions(
  conditions: readonly WatchCondition[],
  words: readonly string[],
): { kept: WatchCondition[]; excepted: string[] } {
  const wanted = words.map((word) => word.toLowerCase());
  const named = (name: string) => wanted.some((word) => name.toLowerCase().includes(word));
  const left = (condition: WatchCondition) =>
    wanted.some((word) => KINDS_BY_WORD[word]?.includes(condition.kind)) ||
    (condition.kind === 'left' && named(condition.code)) ||
    (condition.kind === 'figure' && named(condition.field));
  return {
    kept: conditions.filter((condition) => !left(condition)),
    excepted: conditions.filter(left).map(describeCondition),
  };
}
