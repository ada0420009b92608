import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DayEntry } from '../../src/catalog/calendar-days.js';
import type { DigestOutcome } from '../../src/digest/digest-runner.js';
import type { Subscription } from '../../src/digest/subscription.js';
import type { Shown } from '../../src/figures/may-show-figures.js';
import type { Comparables } from '../../src/forecast/comparables.js';
import type { Forecast } from '../../src/forecast/forecast.js';
import type { TrackRecord } from '../../src/forecast/track-record.js';
import {
  capBlocks,
  context,
  divider,
  header,
  mrkdwnField,
  mrkdwnSection,
  plainMessage,
  warning,
  warningMessage,
} from '../../src/render/block-kit.js';
import {
  cancelledEventMessage,
  cancelledEventWords,
  cancelledSummaryOpening,
  cancelledSummaryText,
  markedEventOption,
} from '../../src/render/cancelled-words.js';
import { USAGE } from '../../src/render/command-syntax.js';
import { chanceWords, comparablesWords, measuredWords, timeToGo } from '../../src/render/comparables-words.js';
import {
  digestAnnouncement,
  digestMessage,
  digestNowMessage,
  digestOffMessage,
  digestOnMessage,
  digestPausedMessage,
  digestStatusMessage,
  noDigestMessage,
  personalDigestAnnouncement,
  personalDigestHomeBlocks,
} from '../../src/render/digest-blocks.js';
import {
  asOfLine,
  eventCardMessage,
  eventChoicesMessage,
  eventListMessage,
  eventPlainTitle,
  eventSection,
  eventTitle,
  namedEventsMessage,
  noEventMessage,
  readerTime,
  searchedForNote,
} from '../../src/render/event-blocks.js';
import { eventDetailsEntity, eventEntity } from '../../src/render/event-entity.js';
import { everyWords } from '../../src/render/every-words.js';
import { helpMessage, usageMessage } from '../../src/render/help-blocks.js';
import { homeView } from '../../src/render/home-view.js';
import { describeLimit } from '../../src/render/limit-wording.js';
import {
  mcpOffMessage,
  mcpRevokedMessage,
  mcpTokenHomeBlocks,
  mcpTokenMessage,
  mcpTokenRefusedMessage,
} from '../../src/render/mcp-token-blocks.js';
import { missingCodeMessage } from '../../src/render/missing-code-blocks.js';
import {
  closeEventsGroup,
  eventOption,
  promoModalView,
  reportModalView,
  watchFormAnswerView,
  watchModalView,
} from '../../src/render/modal-views.js';
import {
  channelLink,
  clip,
  clipName,
  code,
  dateToken,
  escapeText,
  joinMrkdwn,
  md,
  mentionUser,
  readerDay,
  readerInstant,
  readerIsoInstant,
  shorten,
} from '../../src/render/mrkdwn.js';
import { plural } from '../../src/render/plural.js';
import {
  type ConfirmationRefusal,
  confirmationRefusedMessage,
  type PromoOutcome,
  promoAnnouncement,
  promoAnswerView,
  promoCodeNotNamed,
  promoCodeProblem,
  promoConfirmMessage,
  promoDoneMessage,
  promoFailedMessage,
  promoNotEditorView,
  promoUncertainMessage,
} from '../../src/render/promo-blocks.js';
import {
  notPostedInChannelMessage,
  postedInChannelMessage,
  reportAnswerMessage,
  reportHeldMessage,
  reportNotHereMessage,
} from '../../src/render/report-answer.js';
import {
  fetchingReportMessage,
  fetchingReportWords,
  figureFields,
  reportAbandonedMessage,
  reportFailedMessage,
  reportMessage,
  reportProgressMessage,
} from '../../src/render/report-blocks.js';
import {
  reportStreamEnd,
  reportStreamHandOff,
  reportStreamProgress,
  reportStreamStart,
} from '../../src/render/report-stream-chunks.js';
import {
  chartLabels,
  figuresTableBlocks,
  forecastWords,
  paceWords,
  promoChartBlocks,
  promoTableBlocks,
  reportSalesBlocks,
  salesChartBlocks,
  watchChartMessage,
} from '../../src/render/sales-blocks.js';
import { salesDigestMessage } from '../../src/render/sales-digest-blocks.js';
import {
  notInChannelWatchMessage,
  postInChannelBlocks,
  sharedChannelWatchMessage,
} from '../../src/render/shared-channel-blocks.js';
import {
  forecastAccuracyLine,
  forecastAccuracyMessage,
  forecastAccuracyWithheldMessage,
} from '../../src/render/track-record-blocks.js';
import { eventUnfurlBlocks } from '../../src/render/unfurl-blocks.js';
import { watchAlertMessage } from '../../src/render/watch-alert-blocks.js';
import { watchCardMessage } from '../../src/render/watch-card-blocks.js';
import { watchListMessage } from '../../src/render/watch-list-blocks.js';
import {
  watchAnswer,
  watchConfirmationMessage,
  watchHeldMessage,
  watchOutcomeMessage,
  watchPausedMessage,
  watchRefusedMessage,
} from '../../src/render/watch-outcome-blocks.js';
import {
  snoozedLine,
  snoozeWords,
  threadOnlyHeldMessage,
  watchQuietAnswer,
} from '../../src/render/watch-quiet-blocks.js';
import { watchSummaryMessage } from '../../src/render/watch-summary-blocks.js';
import {
  conditionLines,
  crossingCounts,
  decimal,
  eventName,
  figureValue,
  fitLines,
  mention,
  nextCheckWords,
  num,
  promoLines,
  reportFields,
  resumeHint,
  soldBar,
  soldWords,
  ticketsSold,
} from '../../src/render/watch-words.js';
import { channelChangeHeldMessage, withheldWords } from '../../src/render/withheld-words.js';
import {
  asOfUtc,
  promoStepSummary,
  reportStepLost,
  reportStepText,
  upcomingText,
  withheldFromReportStep,
} from '../../src/render/workflow-step-texts.js';
import { HOSTILE_NAMES } from '../../src/simulator/seed.js';
import type { BudgetSnapshot } from '../../src/ticketing/budget.js';
import { eventSchema, type TicketingEvent } from '../../src/ticketing/schemas.js';
import type { SetWatchOutcome } from '../../src/watches/set-watch.js';
import { type EventCheck, newConditionState, type Watch } from '../../src/watches/watch.js';
import type { WatchCondition } from '../../src/watches/watch-condition.js';
import { maybePlurals } from '../helpers/maybe-plural.js';
import { shown } from '../helpers/shown.js';
import { strayMarkup } from '../helpers/stray-markup.js';

// Sample values: ordinary ones, and text that would ping, link or mention if it reached Slack raw.
const NOW = Date.parse('2026-12-01T09:00:00Z');
const HOSTILE = [...HOSTILE_NAMES, '</>', 'a > b & c < d', '<https://evil.example|x>', '<#C0123456>', '&lt;!here&gt;'];

let counter = 0;
const event = (fields: Record<string, unknown>): TicketingEvent => {
  counter += 1;
  return eventSchema.parse({
    id: `evt_3f2c1a9e-8b7d-4c6e-9f01-${String(counter).padStart(12, '0')}`,
    name: 'Jazz Night',
    startDate: '2026-12-01T13:15:00Z',
    endDate: '2026-12-01T16:15:00Z',
    timezone: 'Asia/Kathmandu',
    ...fields,
  });
};
const EVENTS: TicketingEvent[] = [
  event({ venue: { name: 'Hall', city: 'Kathmandu' }, status: 'cancelled' }),
  event({ name: undefined, startDate: '2026-12-02', endDate: '2026-12-03', timezone: 'Pacific/Auckland' }),
  ...HOSTILE.map((name) => event({ name, venue: name, status: name })),
  // Ids the API sends are kept as they are when they are not ours to parse.
  event({ id: '<!channel>', name: '<!here>' }),
];
const HOSTILE_EVENT = EVENTS[EVENTS.length - 1] as TicketingEvent;

const LIMIT = { limit: 3, windowMs: 60_000 };

const subscription = (fields: Partial<Subscription>): Subscription => ({
  channelId: 'C0123456',
  time: '08:30',
  timezone: 'Asia/Kathmandu',
  days: 3,
  skipEmpty: false,
  createdBy: 'U0123456',
  createdAt: '2026-11-30T10:00:00.000Z',
  status: 'active',
  ...fields,
});
const EVENT_SUBSCRIPTIONS: Subscription[] = [
  subscription({
    weekdays: [1, 2, 3, 4, 5],
    lastRun: { date: '2026-11-30', at: '2026-11-30T03:00:00Z', outcome: 'sent' },
  }),
  ...HOSTILE.map((text) =>
    subscription({
      channelId: text,
      createdBy: text,
      createdAt: text,
      time: text,
      status: 'failing',
      failure: text,
      match: text,
      days: 1,
      lastRun: { date: text, at: text, outcome: 'failed' },
    }),
  ),
];
/** Each as the event digest, and as a weekly and a daily sales digest. */
const SUBSCRIPTIONS: Subscription[] = [
  ...EVENT_SUBSCRIPTIONS,
  ...EVENT_SUBSCRIPTIONS.map((each) => ({
    ...each,
    kind: 'sales' as const,
    cadence: 'weekly' as const,
    weekdays: [1],
  })),
  ...EVENT_SUBSCRIPTIONS.map((each) => ({ ...each, kind: 'sales' as const, cadence: 'daily' as const })),
];

const DIGEST_OUTCOMES: DigestOutcome[] = [
  { kind: 'sent', date: '2026-12-01', events: 3 },
  { kind: 'skipped-empty', date: '2026-12-01' },
  { kind: 'already-sent', date: '2026-12-01' },
  { kind: 'in-progress', date: '2026-12-01' },
  { kind: 'channel-failing', date: '2026-12-01', reason: '<!channel>' },
  { kind: 'failed', date: '2026-12-01', reason: '<!here>', retryAt: NOW + 120_000 },
  { kind: 'failed', date: '2026-12-01', reason: '<!here>', retryAt: undefined },
  { kind: 'failed', date: '2026-12-01', reason: '<!here>', retryAt: undefined, stopping: true },
  { kind: 'not-this-weekday', date: '2026-12-01' },
  { kind: 'no-subscription' },
];

const PROMO_OUTCOMES: PromoOutcome[] = [
  { userId: 'U0123456', eventId: EVENTS[0]?.id ?? '', eventName: 'Jazz Night', promoId: 'promo_1', quantity: 250 },
  ...HOSTILE.map((text) => ({
    userId: 'U0123456',
    eventId: text,
    eventName: text,
    promoId: 'promo_1',
    quantity: 5,
    code: text,
    previousQuantity: 3,
  })),
  ...HOSTILE.map((text) => ({ userId: text, eventId: text, eventName: text, promoId: text, quantity: 5, code: text })),
  { userId: 'U0123456', eventId: '<!channel>', eventName: undefined, promoId: '<@U1>', quantity: 0 },
];

const BUDGETS: BudgetSnapshot[] = [
  {
    limit: 100,
    remaining: 40,
    resetAt: NOW + 30_000,
    pausedUntil: NOW + 5_000,
    inFlight: 1,
    queued: { interactive: 1, background: 2 },
    reserve: 10,
    lastObservation: { limit: 100, remaining: 40, resetAt: NOW + 30_000, observedAt: NOW },
    rateLimitedResponses: 1,
  },
  {
    limit: 100,
    remaining: 100,
    resetAt: undefined,
    pausedUntil: undefined,
    inFlight: 0,
    queued: { interactive: 0, background: 0 },
    reserve: 10,
    lastObservation: undefined,
    rateLimitedResponses: 0,
  },
];

const hostileText = () => HOSTILE.map((text) => escapeText(text));

/** Watches named, set up and conditioned with the sample texts; each checked on a report that uses them too. */
const WATCHES: Watch[] = HOSTILE.flatMap((text) =>
  [false, true].map((personal) => ({
    channel: text,
    personal,
    eventId: text,
    eventName: text,
    endsAtMs: NOW + 3_600_000,
    startsAtMs: NOW,
    setBy: text,
    createdAt: NOW - 3_600_000,
    conditions: (
      [
        { kind: 'figure', field: text, op: '>=', value: 1 },
        { kind: 'left', code: text, max: 5, unit: 'count' },
        { kind: 'left', code: text, max: 5, unit: 'percent' },
        { kind: 'sold-share', percent: 90 },
        { kind: 'sold-since', count: 10 },
        { kind: 'stall', hours: 6 },
        { kind: 'sold-out' },
      ] satisfies WatchCondition[]
    ).map((condition, index) => ({
      ...newConditionState(condition, text),
      armed: index % 2 === 0,
      crossings: index,
      lastValue: 2,
      unknown: index === 2 ? text : undefined,
    })),
    paused: personal ? { reason: text, at: NOW } : undefined,
  })),
);
/** The sample watches snoozed for a while, until a threshold, and muted by hostile ids. */
const QUIETED: Watch[] = WATCHES.flatMap((watch, index) => [
  { ...watch, quiet: { snoozedUntil: NOW + 3_600_000, snoozedBy: watch.setBy, muted: [watch.eventName] } },
  { ...watch, quiet: { untilThreshold: true, snoozedBy: index % 2 ? 'U0123456' : watch.eventName } },
]);
const watchCheck = (watch: Watch): Shown<EventCheck> =>
  shown<EventCheck>({
    eventId: watch.eventId,
    checkedAt: NOW - 60_000,
    report: {
      eventName: watch.eventName,
      currency: watch.eventName,
      ticketsSold: 5,
      capacity: 10,
      [watch.eventName]: 7,
      promos: [{ id: watch.eventId, code: watch.eventName, redeemed: 1, quantity: 9 }],
    },
    previousSold: 1,
    lastSaleAt: NOW - 60_000,
    checks: 3,
  });

/**
 * Every function each module in src/render exports, with what it renders for the sample values.
 * A module or export missing here fails the first test, so a new builder cannot go unchecked.
 */
/** A forecast that sells out, for the sales blocks' samples. */
/** A comparison, and one with too few similar events: no outside text, but every word and label they carry. */
const SAMPLE_COMPARABLES: Comparables[] = [
  {
    kind: 'compared',
    beforeMs: 21 * 86_400_000,
    share: 0.38,
    capacity: 500,
    count: 4,
    atThisPoint: { low: 0.24, median: 0.31, high: 0.4 },
    final: { low: 0.78, median: 0.9, high: 1 },
    alike: ['venue', 'weekday'],
    members: [],
  },
  { kind: 'too-few', found: 1, needs: 3, beforeMs: 30 * 3_600_000, share: 0.5 },
];

const SAMPLE_FORECAST = {
  kind: 'forecast',
  method: 'booking-curve',
  learnedFrom: 4,
  sold: 120,
  capacity: 200,
  atStart: { low: 180, likely: 200, high: 200 },
  sellOut: { earliest: NOW + 2 * 86_400_000, likely: NOW + 4 * 86_400_000, latest: NOW + 6 * 86_400_000 },
  pace: { perHourLastDay: 1.5, perDayLastWeek: 20, perDayWeekBefore: 18 },
} as const satisfies Forecast;

/** A track record over hostile event ids, one of them with too little history for any forecast. */
const SAMPLE_TRACK_RECORD: TrackRecord = {
  events: HOSTILE.map((eventId, i) => ({
    eventId,
    startsAtMs: NOW - (i + 1) * 86_400_000,
    capacity: 200,
    final: 150,
    forecasts:
      i === 0
        ? []
        : [0.25, 0.5, 0.75].map((share) => ({
            share,
            at: NOW - (i + 2) * 86_400_000,
            said: { low: 120, likely: 140, high: 160 },
            learnedFrom: 3,
            error: 0.05,
            held: share !== 0.25,
          })),
  })),
  forecasts: 3 * (HOSTILE.length - 1),
  meanError: 0.05,
  coverage: 2 / 3,
};

const RENDERS: Record<string, Record<string, () => unknown[]>> = {
  'block-kit.ts': {
    mrkdwnSection: () => [...hostileText().map(mrkdwnSection), mrkdwnSection(md`<not a link>`)],
    mrkdwnField: () => hostileText().map(mrkdwnField),
    context: () => [context(...hostileText())],
    divider: () => [divider()],
    header: () => [...hostileText().map(header), header(md`<b>`)],
    plainMessage: () => hostileText().map(plainMessage),
    warningMessage: () => hostileText().map(warningMessage),
    warning: () => hostileText().map((text) => plainMessage(warning(text))),
    capBlocks: () => [
      capBlocks(
        Array.from({ length: 60 }, (_, index) => mrkdwnSection(escapeText(HOSTILE[index % HOSTILE.length] ?? ''))),
        50,
        (n) => md`...and ${n} more <hidden>`,
      ),
    ],
  },
  'digest-blocks.ts': {
    digestMessage: () => {
      const entries: DayEntry[] = EVENTS.map((each, index) => ({
        event: each,
        day: index % 2 ? '2026-12-01' : '2026-12-02',
      }));
      const many = Array.from({ length: 40 }, () => entries).flat();
      return [
        digestMessage({ entries, days: 3, date: '2026-12-01' }),
        digestMessage({ entries: many, days: 1, date: '<!date>' }),
        digestMessage({ entries: [], days: 1, date: '<!here>' }),
        digestMessage({ entries: [], days: 7, date: '2026-12-01' }),
      ];
    },
    digestStatusMessage: () =>
      SUBSCRIPTIONS.flatMap((each) => [
        digestStatusMessage({ ...each, nextAt: NOW + 3_600_000 }),
        digestStatusMessage({ ...each, personal: true, nextAt: NOW + 3_600_000 }),
      ]),
    personalDigestAnnouncement: () =>
      SUBSCRIPTIONS.map((each) => personalDigestAnnouncement({ ...each, personal: true })),
    personalDigestHomeBlocks: () => [
      personalDigestHomeBlocks({ digest: undefined }),
      ...SUBSCRIPTIONS.map((each) =>
        personalDigestHomeBlocks({
          digest: { ...each, personal: true, nextAt: NOW },
          notice: escapeText(each.channelId),
        }),
      ),
    ],
    digestAnnouncement: () => SUBSCRIPTIONS.map(digestAnnouncement),
    digestOnMessage: () =>
      SUBSCRIPTIONS.flatMap((each) =>
        (['named', 'person', 'default'] as const).map((source) => digestOnMessage(each, '<2026-12-02>', source)),
      ),
    noDigestMessage: () => [
      noDigestMessage(),
      noDigestMessage(true),
      noDigestMessage(false, true),
      noDigestMessage(true, true),
    ],
    digestOffMessage: () =>
      [false, true].flatMap((sales) => [
        digestOffMessage(true, false, sales),
        digestOffMessage(false, false, sales),
        digestOffMessage(true, true, sales),
        digestOffMessage(false, true, sales),
      ]),
    digestNowMessage: () =>
      [false, true].flatMap((sales) =>
        DIGEST_OUTCOMES.flatMap((outcome) => [
          digestNowMessage(outcome, NOW, undefined, false, sales),
          digestNowMessage(outcome, NOW, escapeText('<!channel> refused'), false, sales),
          digestNowMessage(outcome, NOW, undefined, true, sales),
        ]),
      ),
    digestPausedMessage: () => [
      digestPausedMessage('C0123456', 'not_in_channel'),
      ...HOSTILE.map((text) => digestPausedMessage(text, text)),
      ...SUBSCRIPTIONS.map((each) => digestPausedMessage(each.channelId, each.failure ?? 'not_in_channel', each)),
    ],
  },
  'event-blocks.ts': {
    namedEventsMessage: () => [
      namedEventsMessage({ events: EVENTS, asOf: Date.UTC(2026, 10, 23), promo: true }),
      namedEventsMessage({ events: [], asOf: Date.UTC(2026, 10, 23), promo: false }),
    ],
    eventTitle: () => EVENTS.map((each) => eventTitle(each)),
    eventPlainTitle: () => EVENTS.map(eventPlainTitle),
    readerTime: () => EVENTS.map(readerTime),
    eventSection: () => EVENTS.flatMap((each) => [eventSection(each), eventSection(each, { titled: false })]),
    asOfLine: () => [asOfLine(NOW), asOfLine(0)],
    eventCardMessage: () =>
      EVENTS.flatMap((each) => [eventCardMessage(each, NOW, { promo: true }), eventCardMessage(each)]),
    eventChoicesMessage: () =>
      HOSTILE.flatMap((query) =>
        [
          'show' as const,
          { verb: 'Watch', command: (id: string) => `watch ${id}: ${query} --me` },
          // Too long to carry on a button: Show buttons instead, and why.
          { verb: query, command: (id: string) => `watch ${id}: ${query.repeat(2000)}` },
        ].flatMap((action) => [
          eventChoicesMessage({ events: EVENTS, query, action, asOf: NOW, counts: { total: 40, upcoming: 30 } }),
          eventChoicesMessage({ events: EVENTS, query, action, asOf: NOW, heading: md`2 of "${clip(query, 60)}"` }),
        ]),
      ),
    searchedForNote: () => HOSTILE.map((words) => searchedForNote(words, ['today', 'tomorrow', 'week'])),
    noEventMessage: () => HOSTILE.map((target) => noEventMessage({ target, asOf: NOW, refreshPeriodMs: 300_000 })),
    eventListMessage: () => [
      ...HOSTILE.map((words) =>
        eventListMessage({
          title: md`Upcoming events matching "${clip(words, 60)}"`,
          events: EVENTS,
          nextValue: JSON.stringify({ offset: 5, page: 2, words }),
          page: 2,
          promo: true,
          footer: asOfLine(NOW),
        }),
      ),
      eventListMessage({ title: md`Upcoming events`, events: [] }),
      eventListMessage({ title: md`Upcoming events`, events: [], emptyText: escapeText('<!channel>') }),
    ],
  },
  'help-blocks.ts': {
    helpMessage: () => [helpMessage({ reportLimit: LIMIT, maxQuantity: 1_000_000 })],
    usageMessage: () =>
      hostileText().flatMap((problem) => Object.values(USAGE).map((usage) => usageMessage(problem, usage))),
  },
  'home-view.ts': {
    homeView: () => [
      ...BUDGETS.map((budget) =>
        homeView({
          events: EVENTS,
          activity: {
            reports: HOSTILE.map((text) => ({
              at: '2026-11-30T10:00:00Z',
              userId: 'U0123456',
              eventId: text,
              eventName: text,
            })),
            promoChanges: HOSTILE.map((text) => ({
              at: text,
              userId: text,
              channelId: text,
              eventId: text,
              promoId: text,
              quantity: 5,
              outcome: 'failed' as const,
              error: text,
              // Kept by newer records: the event's name and the code people know.
              eventName: text,
              code: text,
            })),
          },
          budget,
          now: NOW,
        }),
      ),
      homeView({
        events: { error: escapeText('<!channel>') },
        activity: { reports: [], promoChanges: [] },
        budget: BUDGETS[1] as BudgetSnapshot,
        now: NOW,
      }),
      homeView({
        events: [],
        activity: { reports: [], promoChanges: [] },
        budget: BUDGETS[1] as BudgetSnapshot,
        now: NOW,
      }),
      homeView({
        events: [],
        activity: { reports: [], promoChanges: [] },
        budget: BUDGETS[1] as BudgetSnapshot,
        now: NOW,
        figures: shown({ forecastAccuracy: SAMPLE_TRACK_RECORD }),
        withheld: { why: 'not-known', reason: '<!channel>', about: 'person' },
      }),
    ],
  },
  'cancelled-words.ts': {
    cancelledEventWords: () => HOSTILE.map((name) => cancelledEventWords(name, 'promo')),
    cancelledEventMessage: () =>
      HOSTILE.flatMap((name) => [cancelledEventMessage(name, 'watch'), cancelledEventMessage(name, 'promo')]),
    cancelledSummaryOpening: () =>
      hostileText().flatMap((name) => [cancelledSummaryOpening(name, true), cancelledSummaryOpening(name, false)]),
    cancelledSummaryText: () => hostileText().map(cancelledSummaryText),
    markedEventOption: () => EVENTS.map((event) => markedEventOption({ ...event, status: 'cancelled' })),
  },
  'mcp-token-blocks.ts': {
    mcpTokenMessage: () => [mcpTokenMessage({ token: 'eo_mcp_abc-DEF_123', expiresAt: Date.UTC(2026, 0, 31) })],
    mcpTokenRefusedMessage: () => [
      mcpTokenRefusedMessage({ kind: 'guest' }),
      mcpTokenRefusedMessage({ kind: 'stranger' }),
      ...HOSTILE.map((reason) => mcpTokenRefusedMessage({ kind: 'unknown', reason })),
    ],
    mcpRevokedMessage: () => [mcpRevokedMessage(true), mcpRevokedMessage(false)],
    mcpOffMessage: () => [mcpOffMessage()],
    mcpTokenHomeBlocks: () => [
      mcpTokenHomeBlocks(undefined),
      mcpTokenHomeBlocks({ createdAt: Date.UTC(2026, 0, 1), expiresAt: Date.UTC(2026, 0, 31) }),
      mcpTokenHomeBlocks({ createdAt: 1, expiresAt: 2, lastUsedAt: 3 }),
    ],
  },
  'missing-code-blocks.ts': {
    missingCodeMessage: () =>
      HOSTILE.flatMap((name) => [
        missingCodeMessage({ eventName: name, codes: [], command: (each) => `promo ${name} ${each} 10` }),
        missingCodeMessage({
          eventName: name,
          codes: ['EARLYBIRD', name],
          command: (each) => `promo ${name} ${each} 10`,
        }),
      ]),
  },
  'limit-wording.ts': {
    describeLimit: () =>
      [1, 3_600_000, 60_000, 120_000, 1_000, 500].map((windowMs) =>
        describeLimit({ limit: windowMs === 1 ? 1 : 30, windowMs }),
      ),
  },
  'modal-views.ts': {
    eventOption: () => EVENTS.map(eventOption),
    closeEventsGroup: () => HOSTILE.map((query) => closeEventsGroup(query, EVENTS.map(eventOption))),
    promoModalView: () => [
      promoModalView('{"channel":"<!channel>"}', 1_000_000),
      ...hostileText().map((text) =>
        promoModalView('{"channel":"<!channel>"}', 1_000_000, HOSTILE_EVENT, {
          code: text,
          quantity: '25',
          codeProblem: promoCodeProblem(text, [text], []),
        }),
      ),
    ],
    reportModalView: () => [reportModalView('{"channel":"<!channel>"}')],
    watchFormAnswerView: () => hostileText().map((text) => watchFormAnswerView(text)),
    watchModalView: () => [
      watchModalView({ privateMetadata: '{"channel":"<!channel>"}', personal: true }),
      ...hostileText().map((text) =>
        watchModalView({
          privateMetadata: '{}',
          event: HOSTILE_EVENT,
          personal: false,
          typed: { conditions: text, problem: text },
        }),
      ),
      ...EVENTS.map((event) =>
        watchModalView({
          privateMetadata: '{}',
          event,
          offered: HOSTILE.flatMap((text): WatchCondition[] => [
            { kind: 'left', code: text, max: 10, unit: 'count' },
            { kind: 'figure', field: text, op: '>=', value: 4102 },
          ]),
          ticked: HOSTILE.slice(0, 1).map(
            (text): WatchCondition => ({ kind: 'left', code: text, max: 10, unit: 'count' }),
          ),
          currency: '<!channel>',
          note: md`${escapeText(HOSTILE[0] ?? '')}`,
          personal: false,
        }),
      ),
    ],
  },
  'plural.ts': {
    plural: () => [
      plural(0, 'report'),
      plural(1, 'report'),
      plural(2.5, 'match', 'matches'),
      ...HOSTILE.map((text) => plural(2, text)),
    ],
  },
  'every-words.ts': {
    everyWords: () => [everyWords(0), everyWords(5 * 60_000), everyWords(150 * 60_000), everyWords(Number.NaN)],
  },
  'mrkdwn.ts': {
    escapeText: () => hostileText(),
    shorten: () =>
      HOSTILE.flatMap((text) =>
        [3, 6, 12, 30].map((max) => shorten(md`${escapeText(text)} ${mentionUser('U0123456')}`, max)),
      ),
    clip: () => HOSTILE.map((text) => clip(text, 12)),
    clipName: () => HOSTILE.flatMap((text) => [clipName(text, 12), clipName(text, 200)]),
    md: () => [md`<id or name> & <!channel> ${escapeText('<@U1>')} ${3} >quote`],
    joinMrkdwn: () => [joinMrkdwn(hostileText()), joinMrkdwn(hostileText(), md` <|> `)],
    mentionUser: () => [mentionUser('U0123456'), mentionUser('W0123456'), ...HOSTILE.map(mentionUser)],
    channelLink: () => [channelLink('C0123456'), channelLink('G0123456'), ...HOSTILE.map(channelLink)],
    readerDay: () => [readerDay(NOW), readerDay(Number.NaN)],
    readerInstant: () => [readerInstant(NOW), readerInstant(NOW, '<{time}|> <!here>'), readerInstant(Number.NaN)],
    readerIsoInstant: () => [
      readerIsoInstant('2026-12-01T09:00:00Z'),
      ...HOSTILE.map((text) => readerIsoInstant(text)),
    ],
    dateToken: () => [
      dateToken(NOW, '{date_short_pretty} at {time}', '1 Dec 09:00 UTC'),
      dateToken(NOW, '<{time}|>', '<!here>'),
      dateToken(Number.NaN, '{time}', '<!here>'),
      dateToken(Number.POSITIVE_INFINITY, '{time}', 'never'),
      dateToken(NOW, '<>', 'no format'),
    ],
    code: () => HOSTILE.map((text) => code(text)),
  },
  'shared-channel-blocks.ts': {
    postInChannelBlocks: () =>
      HOSTILE.flatMap((label) =>
        (['external', 'unknown'] as const).map((why) => postInChannelBlocks({ eventId: 'evt_<x>', label, why })),
      ),
    sharedChannelWatchMessage: () =>
      HOSTILE.flatMap((eventName) =>
        (['external', 'unknown'] as const).map((why) =>
          sharedChannelWatchMessage({ eventName, command: `watch evt_x: ${eventName}`, why }),
        ),
      ),
    notInChannelWatchMessage: () =>
      HOSTILE.map((eventName) => notInChannelWatchMessage({ eventName, command: `watch evt_x: ${eventName}` })),
  },
  'workflow-step-texts.ts': {
    reportStepText: () =>
      HOSTILE.map((text) =>
        reportStepText(
          { id: text, name: text },
          shown({
            [text]: 1,
            currency: text,
            generatedAt: text,
            promoCodes: [{ code: text, quantity: 5, redeemed: 2 }],
          }),
        ),
      ),
    withheldFromReportStep: () => [
      withheldFromReportStep({ why: 'not-known', about: 'person', reason: 'no run_by input' }),
      withheldFromReportStep({ why: 'not-known', about: 'conversation', reason: 'no post_in input' }),
      ...HOSTILE.map((text) => withheldFromReportStep({ why: 'not-known', about: 'person', reason: text })),
    ],
    reportStepLost: () => [reportStepLost()],
    asOfUtc: () => [asOfUtc(NOW), asOfUtc(Number.NaN)],
    upcomingText: () => [
      upcomingText({ events: EVENTS, days: 7, words: HOSTILE[0], asOf: NOW }),
      upcomingText({ events: [], days: 1, words: undefined, asOf: NOW }),
    ],
    promoStepSummary: () =>
      EVENTS.flatMap((event) =>
        HOSTILE.flatMap((text) => [
          promoStepSummary(event, { code: text, promoId: 'promo_<x>' }, 5, 'updated', {
            shown: shown({ previous: 3, now: 5 }),
          }),
          promoStepSummary(event, { promoId: text }, 5, 'unknown', { shown: shown({ previous: 3, now: undefined }) }),
          promoStepSummary(event, { code: text, promoId: 'promo_<x>' }, 5, 'updated', { withheld: { why: 'guest' } }),
          promoStepSummary(event, { promoId: text }, 5, 'unknown', {
            withheld: { why: 'not-known', reason: text, about: 'conversation' },
          }),
        ]),
      ),
  },
  'track-record-blocks.ts': {
    forecastAccuracyLine: () => [
      forecastAccuracyLine(SAMPLE_TRACK_RECORD),
      forecastAccuracyLine({ events: [], forecasts: 0, meanError: undefined, coverage: undefined }),
    ],
    forecastAccuracyMessage: () => [
      forecastAccuracyMessage(shown(SAMPLE_TRACK_RECORD)),
      forecastAccuracyMessage(shown({ events: [], forecasts: 0, meanError: undefined, coverage: undefined })),
    ],
    forecastAccuracyWithheldMessage: () =>
      HOSTILE.map((text) => forecastAccuracyWithheldMessage({ why: 'not-known', about: 'person', reason: text })),
  },
  'sales-digest-blocks.ts': {
    salesDigestMessage: () =>
      HOSTILE.map((eventName) =>
        salesDigestMessage({
          entries: [
            {
              eventId: 'evt_<x>',
              eventName,
              startsAtMs: NOW + 9 * 86_400_000,
              sold: 120,
              soldSince: 12,
              forecast: SAMPLE_FORECAST,
              moved: { days: 2 },
              points: [],
            },
          ],
          cadence: 'daily',
          since: NOW - 86_400_000,
          now: NOW,
        }),
      ),
  },
  'comparables-words.ts': {
    comparablesWords: () => [
      ...SAMPLE_COMPARABLES.flatMap((c) => comparablesWords(c) ?? []),
      comparablesWords({ kind: 'none', reason: '<!channel>' }) ?? md`none`,
    ],
    measuredWords: () => [
      measuredWords({
        kind: 'behind-similar',
        beforeMs: 9 * 86_400_000,
        share: 0.2,
        low: 0.3,
        median: 0.4,
        high: 0.5,
        count: 4,
      }),
      measuredWords({ kind: 'flatline', spanMs: 7 * 3_600_000, expected: 5.6, chance: 0.0037, count: 4 }),
    ],
    chanceWords: () => [0.5, 0.0037, 0.00004, 1e-9].map(chanceWords),
    timeToGo: () => [3_600_000, 30 * 3_600_000, 21 * 86_400_000].map(timeToGo),
  },
  'sales-blocks.ts': {
    salesChartBlocks: () =>
      HOSTILE.flatMap((eventName) =>
        [2, 5, 40].map((n) =>
          salesChartBlocks({
            eventName,
            points: Array.from({ length: n }, (_, i) => ({ at: NOW - (n - i) * 3_600_000, sold: i * 3 })),
            capacity: 200,
            startsAtMs: NOW + 86_400_000 * 9,
            forecast: SAMPLE_FORECAST,
            zone: 'Europe/Berlin',
          }),
        ),
      ),
    chartLabels: () => chartLabels(HOSTILE),
    promoChartBlocks: () =>
      HOSTILE.flatMap((code) => promoChartBlocks({ promos: [{ code, redeemed: 3, quantity: 10 }] })),
    figuresTableBlocks: () => HOSTILE.flatMap((text) => figuresTableBlocks({ [text]: 3, currency: text })),
    promoTableBlocks: () =>
      HOSTILE.flatMap((code) => promoTableBlocks({ promos: [{ code, redeemed: 3, quantity: 10 }] })),
    paceWords: () => [paceWords(SAMPLE_FORECAST) ?? md`none`],
    watchChartMessage: () =>
      HOSTILE.map((eventName) =>
        watchChartMessage({
          eventName,
          figures: shown({ report: { promos: [{ code: eventName, redeemed: 1, quantity: 5 }] }, insight: undefined }),
        }),
      ),
    reportSalesBlocks: () =>
      HOSTILE.map((eventName) =>
        reportSalesBlocks({
          eventName,
          figures: shown({
            report: { promos: [{ code: eventName, redeemed: 1, quantity: 5 }] },
            insight: {
              points: [1, 2, 3].map((i) => ({ at: NOW - i * 3_600_000, sold: i })),
              capacity: 50,
              startsAtMs: NOW + 86_400_000,
              timezone: 'Asia/Kathmandu',
              forecast: SAMPLE_FORECAST,
            },
          }),
        }),
      ),
    forecastWords: () => [
      forecastWords(SAMPLE_FORECAST, NOW + 9 * 86_400_000),
      forecastWords({ ...SAMPLE_FORECAST, sellOut: undefined }, NOW + 9 * 86_400_000),
      forecastWords(
        { ...SAMPLE_FORECAST, sellOut: undefined, basis: '<!here>', coverage: 0.8, backtestedOn: 3 },
        NOW + 9 * 86_400_000,
      ),
      forecastWords({ ...SAMPLE_FORECAST, basis: 'pickup-days', coverage: 0.8, backtestedOn: 3 }, NOW + 9 * 86_400_000),
      forecastWords({ kind: 'none', reason: '<!channel> too few', pace: SAMPLE_FORECAST.pace }, NOW),
    ],
  },
  'promo-blocks.ts': {
    promoConfirmMessage: () =>
      EVENTS.map((each) =>
        promoConfirmMessage({
          event: each,
          promoId: each.name ?? '<!here>',
          quantity: 250,
          changeId: '<x>',
          validForMinutes: 10,
        }),
      ).concat(
        HOSTILE.map((text) =>
          promoConfirmMessage({
            event: EVENTS[0] as TicketingEvent,
            promoId: text,
            code: text,
            quantity: 100,
            figures: shown({ previousQuantity: 80, redeemed: 3 }),
            changeId: '<x>',
            validForMinutes: 10,
          }),
        ),
      ),
    promoNotEditorView: () => [promoNotEditorView()],
    promoAnswerView: () =>
      ['<!channel>', 'C0001', undefined].flatMap((channelId) =>
        (['preparing', 'fetching', 'confirmation', 'answer', 'failed'] as const).map((state) =>
          promoAnswerView({ channelId, channelRefused: '<!here>' }, state),
        ),
      ),
    promoAnnouncement: () => PROMO_OUTCOMES.map((outcome) => promoAnnouncement(shown(outcome))),
    promoDoneMessage: () =>
      PROMO_OUTCOMES.flatMap((outcome) => [
        promoDoneMessage(outcome, true),
        promoDoneMessage(outcome, false),
        promoDoneMessage(outcome, 'no-channel'),
        promoDoneMessage(outcome, { why: 'shared' }),
      ]),
    promoUncertainMessage: () =>
      PROMO_OUTCOMES.map((outcome) => promoUncertainMessage(outcome, escapeText('<!channel> timed out'))),
    promoFailedMessage: () => hostileText().map(promoFailedMessage),
    promoCodeNotNamed: () =>
      hostileText().map((text) => plainMessage(promoCodeNotNamed(text, [...HOSTILE, 'EARLYBIRD']))),
    promoCodeProblem: () =>
      hostileText().flatMap((text) => [
        plainMessage(promoCodeProblem(text, [...HOSTILE], [...HOSTILE])),
        plainMessage(promoCodeProblem(text, [], [...HOSTILE, 'EARLYBIRD'])),
      ]),
    confirmationRefusedMessage: () =>
      (['unknown', 'used', 'expired', 'not-yours', 'not-editor'] satisfies ConfirmationRefusal[]).map(
        confirmationRefusedMessage,
      ),
  },
  'report-answer.ts': {
    reportAnswerMessage: () =>
      HOSTILE.flatMap((text) => [
        reportAnswerMessage({
          status: { state: 'report', report: shown({ [text]: 1, eventName: text, currency: text }) },
          label: text,
          reportLimit: LIMIT,
          about: { eventId: text, describeError: () => escapeText(text), attachmentNote: escapeText(text) },
          sales: shown({ report: { [text]: 1 }, insight: undefined }),
          offerToPost: 'external',
        }),
        reportAnswerMessage({
          status: { state: 'failed', error: new Error(text) },
          label: text,
          reportLimit: LIMIT,
          about: { eventId: text, describeError: () => escapeText(text) },
        }),
      ]),
    postedInChannelMessage: () => [
      postedInChannelMessage(undefined),
      ...HOSTILE.map((text) => postedInChannelMessage(escapeText(text))),
    ],
    reportHeldMessage: () =>
      HOSTILE.map((text) => reportHeldMessage(text, { why: 'not-known', about: 'person', reason: text })),
    reportNotHereMessage: () => HOSTILE.map((text) => reportNotHereMessage(text)),
    notPostedInChannelMessage: () => [notPostedInChannelMessage(undefined), ...HOSTILE.map(notPostedInChannelMessage)],
  },
  'report-stream-chunks.ts': {
    reportStreamStart: () =>
      HOSTILE.flatMap((label) => [
        reportStreamStart({ state: 'queued', position: 3, estimatedWaitMs: 40_000 }, label),
        reportStreamStart({ state: 'fetching', position: 0, estimatedWaitMs: 0 }, label),
      ]),
    reportStreamProgress: () => [
      reportStreamProgress({ state: 'queued', position: 2, estimatedWaitMs: 20_000 }),
      reportStreamProgress({ state: 'fetching', position: 0, estimatedWaitMs: 0 }),
    ],
    reportStreamEnd: () => [reportStreamEnd(true), reportStreamEnd(false)],
    reportStreamHandOff: () => [reportStreamHandOff()],
  },
  'report-blocks.ts': {
    figureFields: () => [
      figureFields([], 'EUR'),
      ...HOSTILE.map((text) =>
        figureFields(
          [
            [text, 1_200.5],
            ['revenue', 99],
          ],
          text,
          12,
        ),
      ),
    ],
    reportMessage: () => [
      reportMessage(
        shown({
          ticketsSold: 120,
          revenue: 4_500.5,
          currency: 'EUR',
          generatedAt: '2026-12-01T09:00:00Z',
          byDay: [{ day: '2026-12-01', ticketsSold: 70 }],
        }),
        { eventId: EVENTS[0]?.id ?? '', eventName: 'Jazz Night' },
      ),
      reportMessage(shown({ ticketsSold: 12, capacity: 40 }), { eventId: 'evt_1', eventName: 'Jazz', cancelled: true }),
      ...HOSTILE.map((text) =>
        reportMessage(
          shown({
            [text]: 1,
            revenue: 2,
            currency: text,
            eventName: text,
            generatedAt: text,
            [`${text} list`]: [{ name: text, [text]: 3 }],
            rows: [{ label: text, count: 4 }],
          }),
          { eventId: text, attachmentNote: escapeText(text) },
        ),
      ),
      reportMessage(shown({}), { eventId: HOSTILE_EVENT.id }),
    ],
    reportProgressMessage: () =>
      HOSTILE.flatMap((label) => [
        reportProgressMessage({ state: 'queued', position: 2, estimatedWaitMs: 40_000 }, label, LIMIT),
        reportProgressMessage({ state: 'fetching', position: 0, estimatedWaitMs: 0 }, label, LIMIT),
      ]),
    reportFailedMessage: () => HOSTILE.map((text) => reportFailedMessage(text, escapeText(text))),
    reportAbandonedMessage: () => HOSTILE.map(reportAbandonedMessage),
    fetchingReportMessage: () => HOSTILE.map((text) => fetchingReportMessage(md`to find ${code(text, 64)}`, LIMIT)),
    fetchingReportWords: () =>
      HOSTILE.map((text) => plainMessage(fetchingReportWords(md`to find ${code(text, 64)}`, LIMIT))),
  },
  'unfurl-blocks.ts': {
    eventUnfurlBlocks: () =>
      EVENTS.map((event) => ({
        text: 'unfurl',
        blocks: eventUnfurlBlocks({
          event,
          asOf: Date.UTC(2026, 10, 23),
          report: shown({
            report: Object.fromEntries([
              ...HOSTILE.map((text, i) => [text, i]),
              ['currency', '<!channel>'],
              ['ticketsSold', 5],
              ['capacity', 10],
            ]),
            readAt: Date.UTC(2026, 10, 23, 9),
          }),
        }),
      })),
  },
  'event-entity.ts': {
    eventEntity: () =>
      EVENTS.map((event) => eventEntity({ event, postedUrl: 'https://tickets.example.com/e/x', now: NOW })),
    eventDetailsEntity: () =>
      EVENTS.flatMap((event) => {
        const input = { event, postedUrl: 'https://tickets.example.com/e/x', now: NOW, editor: true };
        const report = Object.fromEntries([
          ...HOSTILE.map((text, i) => [text, i * 1000]),
          ['currency', '<!channel>'],
          ['promos', HOSTILE.map((code) => ({ code, quantity: 10, redeemed: 3 }))],
        ]);
        return [
          eventDetailsEntity({
            ...input,
            figures: { kind: 'shown', figures: shown({ report, readAt: NOW - 300_000 }), refreshing: true },
          }),
          ...HOSTILE.map((reason) =>
            eventDetailsEntity({
              ...input,
              figures: { kind: 'withheld', withheld: { why: 'not-known', reason, about: 'person' } },
            }),
          ),
          eventDetailsEntity({ ...input, figures: { kind: 'none', queued: true } }),
        ];
      }),
  },
  'withheld-words.ts': {
    withheldWords: () => [
      withheldWords({ why: 'shared' }),
      withheldWords({ why: 'guest' }),
      withheldWords({ why: 'stranger' }),
      ...HOSTILE.flatMap((reason) => [
        withheldWords({ why: 'not-known', reason, about: 'conversation' }),
        withheldWords({ why: 'not-known', reason, about: 'person' }),
      ]),
    ],
    channelChangeHeldMessage: () => [
      channelChangeHeldMessage({ why: 'guest' }, 'watches'),
      ...HOSTILE.map((reason) => channelChangeHeldMessage({ why: 'not-known', reason, about: 'person' }, 'digest')),
    ],
  },
  'watch-alert-blocks.ts': {
    watchAlertMessage: () =>
      WATCHES.flatMap((watch) =>
        watch.conditions.map((condition) =>
          watchAlertMessage({
            watch,
            condition,
            value: 3,
            check: watchCheck(watch),
            mentions: [watch.setBy, 'U0123456', watch.eventName],
          }),
        ),
      ),
  },
  'watch-card-blocks.ts': {
    watchCardMessage: () =>
      [...WATCHES, ...QUIETED].flatMap((watch) =>
        (['active', 'paused', 'ended', 'unwatched'] as const).flatMap((state) =>
          [watchCheck(watch), undefined].map((check) =>
            watchCardMessage({
              watch,
              check,
              nextCheckAt: NOW + 60_000,
              now: NOW,
              state,
              endedBy: watch.setBy,
              intervalMs: 300_000,
            }),
          ),
        ),
      ),
  },
  'watch-list-blocks.ts': {
    watchListMessage: () =>
      (['channel', 'person'] as const).flatMap((where) => [
        watchListMessage({
          entries: [...WATCHES, ...QUIETED].map((watch) => ({
            watch,
            check: watchCheck(watch),
            nextCheckAt: NOW + 60_000,
          })),
          intervalMs: 300_000,
          now: NOW,
          where,
          threadOnly: where === 'channel',
        }),
        watchListMessage({ entries: [], intervalMs: 300_000, now: NOW, where }),
      ]),
  },
  'watch-outcome-blocks.ts': {
    watchAnswer: () =>
      HOSTILE.map((text) =>
        watchAnswer(
          { withheld: { why: 'not-known', about: 'person', reason: text } },
          { kind: 'over' },
          text,
          (words) => plainMessage(words),
        ),
      ),
    watchHeldMessage: () =>
      HOSTILE.flatMap((text) => [
        watchHeldMessage({ why: 'not-known', about: 'person', reason: text }),
        watchHeldMessage({ why: 'not-known', about: 'person', reason: text }, true),
      ]),
    watchRefusedMessage: () =>
      HOSTILE.flatMap((eventName) => [
        watchRefusedMessage({ kind: 'too-many-conditions', max: 10, eventName }),
        watchRefusedMessage({ kind: 'too-many-watches', max: 50 }),
        watchRefusedMessage({ kind: 'nothing-to-watch', eventName }),
      ]),
    watchPausedMessage: () => WATCHES.map((watch) => watchPausedMessage(watch, escapeText(watch.eventName))),
    watchConfirmationMessage: () =>
      WATCHES.map((watch) =>
        watchConfirmationMessage({ watch, added: [watch.eventName], already: [watch.eventId], intervalMs: 300_000 }),
      ),
    watchOutcomeMessage: () =>
      WATCHES.flatMap((watch) =>
        (
          [
            { kind: 'over' },
            { kind: 'wording', problem: watch.eventName },
            { kind: 'conditions', problem: watch.eventName },
            { kind: 'refused', refusal: { kind: 'too-many-for-person', max: 20, paused: 3 } },
            { kind: 'nothing-to-watch' },
            {
              kind: 'set',
              result: { watch, added: [watch.eventName], already: [], intervalMs: 300_000 },
              alreadyCrossed: [watch.eventName],
            },
          ] satisfies SetWatchOutcome[]
        ).map((outcome) => watchOutcomeMessage(shown(outcome), watch.eventName, (words) => plainMessage(words))),
      ),
  },
  'watch-quiet-blocks.ts': {
    threadOnlyHeldMessage: () =>
      HOSTILE.map((text) => threadOnlyHeldMessage({ why: 'not-known', about: 'person', reason: text })),
    watchQuietAnswer: () =>
      QUIETED.flatMap((watch) => [
        watchQuietAnswer({ kind: 'snoozed', watch }),
        watchQuietAnswer({ kind: 'muted', watch }),
        watchQuietAnswer({ kind: 'unmuted', watch }),
        watchQuietAnswer({ kind: 'not-yours', watch }),
        watchQuietAnswer({ kind: 'gone' }),
        watchQuietAnswer({ kind: 'thread-only', channel: watch.channel, on: true }),
        watchQuietAnswer({ kind: 'thread-only', channel: 'C0123456', on: false }),
        watchQuietAnswer({ kind: 'thread-only-personal' }),
      ]),
    snoozeWords: () => QUIETED.map((watch) => snoozeWords(watch, NOW) ?? md``),
    snoozedLine: () => QUIETED.flatMap((watch) => snoozedLine(watch, NOW) ?? []),
  },
  'watch-summary-blocks.ts': {
    watchSummaryMessage: () =>
      WATCHES.flatMap((watch) => [
        watchSummaryMessage({ watch, check: watchCheck(watch) }),
        watchSummaryMessage({ watch, check: undefined }),
      ]),
  },
  'watch-words.ts': {
    num: () => [num(1234.5), num(Number.NaN)],
    decimal: () => [decimal(2.345)],
    figureValue: () => HOSTILE.flatMap((text) => [figureValue(text, 12, text), figureValue('revenue', 12, 'EUR')]),
    mention: () => [...HOSTILE, 'U0123456'].map((text) => mention(text) ?? md``),
    eventName: () => WATCHES.map((watch) => eventName(watch, 20)),
    nextCheckWords: () => [nextCheckWords(NOW, NOW), nextCheckWords(NOW + 60_000, NOW)],
    soldBar: () => WATCHES.map((watch) => soldBar(watchCheck(watch).report) ?? md``),
    soldWords: () => WATCHES.map((watch) => soldWords(watchCheck(watch).report)),
    reportFields: () => WATCHES.map((watch) => reportFields(watchCheck(watch).report, 6)),
    fitLines: () => fitLines(HOSTILE.map(escapeText), 2, (left) => md`...and ${left} more`),
    promoLines: () =>
      WATCHES.flatMap((watch) => [
        ...promoLines(watchCheck(watch).report, 'left'),
        ...promoLines(watchCheck(watch).report, 'used'),
      ]),
    ticketsSold: () => [ticketsSold(0), ticketsSold(1), ticketsSold(57)],
    conditionLines: () =>
      WATCHES.flatMap((watch) => [conditionLines(watch, watchCheck(watch), 3), conditionLines(watch, undefined, 3)]),
    crossingCounts: () => WATCHES.flatMap((watch) => crossingCounts(watch, watchCheck(watch)).lines),
    resumeHint: () => WATCHES.map(resumeHint),
  },
};

/** Exports that return raw text, not markup: every builder above escapes what they return. */
const RAW_TEXT: Record<string, readonly string[]> = {
  'event-blocks.ts': ['eventLabel'],
  'cancelled-words.ts': ['cancelledEventFieldError'],
  'promo-blocks.ts': ['promoCodeFieldError'],
  'plural.ts': ['countedWords'],
  'day-words.ts': ['longDayWords', 'shortDayWords'],
  'condition-label.ts': ['conditionLabel'],
  'event-time.ts': ['zoneLabel', 'describeEventTime', 'shortEventTime'],
  'mrkdwn.ts': ['utcMinute'],
  'report-blocks.ts': ['humanise', 'formatNumber', 'formatMoney', 'reportCurrency'],
};

const RENDER_DIR = new URL('../../src/render/', import.meta.url);
const FILES = readdirSync(RENDER_DIR)
  .filter((file) => file.endsWith('.ts'))
  .sort();

describe('no stray <...> in anything src/render builds', () => {
  it('has samples for every function every render module exports, and for nothing else', async () => {
    for (const file of FILES) {
      const module = (await import(new URL(file, RENDER_DIR).href)) as Record<string, unknown>;
      const exported = Object.keys(module)
        .filter((name) => typeof module[name] === 'function')
        .sort();
      const covered = [...Object.keys(RENDERS[file] ?? {}), ...(RAW_TEXT[file] ?? [])].sort();
      expect(covered, `functions exported by src/render/$file`).toEqual(exported);
    }
    expect(Object.keys(RENDERS).filter((file) => !FILES.includes(file))).toEqual([]);
  });

  it.each(
    Object.entries(RENDERS).flatMap(([file, builders]) =>
      Object.entries(builders).map(([name, render]) => ({ file, name, render })),
    ),
  )('$file $name sends only the helpers’ tokens', ({ render }) => {
    const rendered = render();
    expect(rendered.length).toBeGreaterThan(0);
    expect(strayMarkup(rendered)).toEqual([]);
  });

  it.each(
    Object.entries(RENDERS).flatMap(([file, builders]) =>
      Object.entries(builders).map(([name, render]) => ({ file, name, render })),
    ),
  )('$file $name writes counts in words, no "(s)" plural', ({ render }) => {
    expect(maybePlurals(JSON.stringify(render()))).toEqual([]);
  });

  it('finds what it looks for: a bracket in template text, a token in plain text, a broken token', () => {
    expect(strayMarkup({ type: 'mrkdwn', text: '`/events show <id or name>`' })).toHaveLength(1);
    expect(strayMarkup({ type: 'plain_text', text: '<@U0123456>' })).toHaveLength(1);
    expect(strayMarkup({ text: '<!date^NaN^{time}|09:00>' })).toHaveLength(1);
    expect(strayMarkup({ text: 'a > b' })).toHaveLength(1);
    expect(strayMarkup({ text: '<@U0123456> <#C0123456> <!date^1764579600^{time}|09:00>', value: '<x>' })).toEqual([]);
  });
});

describe('/events help', () => {
  it('shows the argument placeholders as text, not as Slack links', () => {
    const help = JSON.stringify(helpMessage({ reportLimit: LIMIT, maxQuantity: 1_000_000 }));
    expect(help).toContain('`/events show &lt;id or name&gt;`');
    expect(help).toContain('`/events promo [&lt;id or name&gt; &lt;code or promoId&gt; &lt;quantity&gt;]`');
  });
});
