import { describe, expect, it } from 'vitest';
import { calendarDays, eventsByDay } from '../../src/catalog/calendar-days.js';
import type { Subscription } from '../../src/digest/subscription.js';
import {
  digestAnnouncement,
  digestMessage,
  digestNowMessage,
  digestOnMessage,
  digestPausedMessage,
  digestStatusMessage,
} from '../../src/render/digest-blocks.js';
import { helpMessage, usageMessage } from '../../src/render/help-blocks.js';
import { md } from '../../src/render/mrkdwn.js';
import {
  confirmationRefusedMessage,
  type PromoOutcome,
  promoAnnouncement,
  promoConfirmMessage,
  promoDoneMessage,
  promoFailedMessage,
  promoUncertainMessage,
} from '../../src/render/promo-blocks.js';
import { MAX_PROMO_QUANTITY } from '../../src/ticketing/promo-quantity.js';
import { eventSchema } from '../../src/ticketing/schemas.js';
import { parsePlainDate } from '../../src/time/zoned.js';
import { shown } from '../helpers/shown.js';

// Every input is fixed (instants, zones, ids): the views are pure, so the snapshots never move.
const NOW = Date.parse('2026-11-23T06:00:00Z');
const ZONE = 'Europe/Berlin';

const uuid = (n: number) => `3f2c1a9e-8b7d-4c6e-9f01-${String(n).padStart(12, '0')}`;
const event = (n: number, fields: Record<string, unknown>) =>
  eventSchema.parse({ id: `evt_${uuid(n)}`, name: `Event ${n}`, status: 'published', ...fields });

const EVENTS = [
  event(1, {
    name: 'Jazz Night <!channel> & friends',
    startDate: '2026-11-23T18:00:00Z',
    endDate: '2026-11-23T21:00:00Z',
    timezone: ZONE,
    venue: { name: 'Hall', city: 'Berlin' },
  }),
  event(2, { name: 'Makers market', startDate: '2026-11-24', endDate: '2026-11-25', timezone: ZONE }),
  event(3, {
    name: 'Night shift',
    status: 'postponed',
    startDate: '2026-11-24T22:30:00Z',
    endDate: '2026-11-25T02:00:00Z',
    timezone: 'America/New_York',
  }),
  event(4, {
    name: 'Draft only',
    status: 'draft',
    startDate: '2026-11-23T10:00:00Z',
    endDate: '2026-11-23T11:00:00Z',
    timezone: ZONE,
  }),
];

const SUBSCRIPTION: Subscription = {
  channelId: 'C0DIGEST',
  time: '08:30',
  timezone: ZONE,
  days: 3,
  skipEmpty: false,
  createdBy: 'U0EDITOR',
  createdAt: '2026-11-20T09:15:00.000Z',
  status: 'active',
  match: 'jazz',
  weekdays: [1, 2, 3, 4, 5],
  lastRun: { date: '2026-11-22', at: '2026-11-22T07:30:04.000Z', outcome: 'sent' },
};

function entries(days: number) {
  const date = parsePlainDate('2026-11-23');
  if (!date) throw new Error('bad date');
  return eventsByDay(EVENTS, calendarDays(date, days, ZONE), ZONE, NOW);
}

describe('digest views', () => {
  it('lists three days of events under their days, drafts left out', () => {
    const message = digestMessage({ entries: entries(3), days: 3, date: '2026-11-23' });
    expect(message).toMatchSnapshot();
  });

  it('says nothing is scheduled today', () => {
    expect(digestMessage({ entries: [], days: 1, date: '2026-11-23' })).toMatchSnapshot();
  });

  it('shows a status with every setting, a paused one and its DM', () => {
    expect(digestStatusMessage({ ...SUBSCRIPTION, nextAt: Date.parse('2026-11-24T07:30:00Z') })).toMatchSnapshot();
    const failing = { ...SUBSCRIPTION, status: 'failing' as const, failure: 'not_in_channel', days: 1 };
    expect(digestStatusMessage({ ...failing, nextAt: 0 })).toMatchSnapshot();
    expect(digestPausedMessage('C0DIGEST', 'not_in_channel')).toMatchSnapshot();
  });

  it('announces a digest and answers "on" for each source of the zone', () => {
    expect(digestAnnouncement(SUBSCRIPTION)).toMatchSnapshot();
    for (const source of ['named', 'person', 'default'] as const) {
      expect(digestOnMessage({ ...SUBSCRIPTION, days: 1 }, '2026-11-24', source)).toMatchSnapshot(source);
    }
  });

  it('answers "now" for every outcome', () => {
    const date = '2026-11-23';
    const outcomes = [
      { kind: 'sent', date, events: 2 },
      { kind: 'skipped-empty', date },
      { kind: 'already-sent', date },
      { kind: 'in-progress', date },
      { kind: 'channel-failing', date, reason: 'not_in_channel' },
      { kind: 'failed', date, reason: 'slack_down', retryAt: NOW + 125_000 },
      { kind: 'failed', date, reason: 'slack_down', retryAt: undefined },
      { kind: 'not-this-weekday', date },
      { kind: 'no-subscription' },
    ] as const;
    const problem = md`Invite me with \`/invite @eventops\`.`;
    expect(outcomes.map((outcome) => digestNowMessage(outcome, NOW, problem))).toMatchSnapshot();
  });
});

describe('promo views', () => {
  const outcome: PromoOutcome = {
    userId: 'U0EDITOR',
    eventId: `evt_${uuid(1)}`,
    eventName: 'Rock & Roll <live>',
    promoId: `promo_${uuid(9)}`,
    quantity: 1250,
    code: 'EARLY*BIRD',
  };

  it('asks to confirm, naming exactly what will change', () => {
    const first = EVENTS[0];
    if (!first) throw new Error('no event');
    const message = promoConfirmMessage({
      event: first,
      promoId: outcome.promoId,
      quantity: 1250,
      changeId: '00000000-0000-4000-8000-000000000001',
      validForMinutes: 10,
    });
    expect(message).toMatchSnapshot();
  });

  it('warns before a quantity at or below what is redeemed, not before closing an unused code', () => {
    const first = EVENTS[0];
    if (!first) throw new Error('no event');
    const confirm = (quantity: number, redeemed: number) =>
      JSON.stringify(
        promoConfirmMessage({
          event: first,
          promoId: outcome.promoId,
          quantity,
          figures: shown({ previousQuantity: 100, redeemed }),
          changeId: '00000000-0000-4000-8000-000000000001',
          validForMinutes: 10,
        }),
      );
    expect(confirm(10, 43)).toContain('already redeemed');
    expect(confirm(43, 43)).toContain('already redeemed');
    expect(confirm(44, 43)).not.toContain('already redeemed');
    // Set to 0 with none redeemed: the usual way to close a code, nothing to warn of.
    expect(confirm(0, 0)).not.toContain('already redeemed');
  });

  it('announces, confirms (announced or not), and reports an unknown or failed change', () => {
    expect(promoAnnouncement(shown(outcome))).toMatchSnapshot();
    expect(promoDoneMessage(outcome, true)).toMatchSnapshot();
    expect(promoDoneMessage({ ...outcome, code: undefined }, false)).toMatchSnapshot();
    expect(promoUncertainMessage(outcome, md`The service did not answer in time.`)).toMatchSnapshot();
    expect(promoFailedMessage(md`The service said: conflict.`)).toMatchSnapshot();
  });

  it('words every refusal', () => {
    const refusals = ['unknown', 'used', 'expired', 'not-yours', 'not-editor'] as const;
    expect(refusals.map((refusal) => confirmationRefusedMessage(refusal))).toMatchSnapshot();
  });
});

describe('help views', () => {
  it('lists every command with the configured report limit', () => {
    expect(
      helpMessage({ reportLimit: { limit: 5, windowMs: 120_000 }, maxQuantity: MAX_PROMO_QUANTITY }),
    ).toMatchSnapshot();
  });

  it('shows the usage with a problem', () => {
    expect(
      usageMessage(md`"1,000" is not a quantity.`, md`/events promo <eventId> <promoId> <quantity>`),
    ).toMatchSnapshot();
  });
});
