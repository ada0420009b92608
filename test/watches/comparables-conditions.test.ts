import { afterEach, describe, expect, it } from 'vitest';
import { salesInsights } from '../../src/forecast/sales-insights.js';
import { SalesHistory } from '../../src/history/sales-history.js';
import { salesPointOf } from '../../src/history/sales-point.js';
import { silentLogger } from '../../src/logger.js';
import type { SlackMessage } from '../../src/render/block-kit.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { EventReport, TicketingEvent } from '../../src/ticketing/schemas.js';
import { setWatch } from '../../src/watches/set-watch.js';
import {
  cannotCheck,
  conditionsOffered,
  describeCondition,
  exceptConditions,
  parseConditions,
} from '../../src/watches/watch-condition.js';
import { ManualClock } from '../helpers/clocks.js';
import { shown } from '../helpers/shown.js';
import { slackWatchService } from './slack-watch-service.js';

/**
 * Issue 45: `behind similar` and `flatline`, set as the command and the form set them, judged at
 * each check against the organization's similar finished events in the stored history, on a clock
 * the test moves: each alerts once per crossing, re-arms, and never on what happened before the
 * watch was set.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-12-01T09:00:00Z');
const CAPACITY = 1000;
/** The event's sale opened 21 days ago and it starts in 21: halfway through. */
const OPENED = T0 - 21 * DAY;
const EVENT: TicketingEvent = {
  id: 'evt_now',
  name: 'Now Night',
  status: 'published',
  timezone: 'UTC',
  start: { kind: 'instant', iso: new Date(T0 + 21 * DAY).toISOString(), epochMs: T0 + 21 * DAY },
  end: { kind: 'instant', iso: new Date(T0 + 21 * DAY + 3 * HOUR).toISOString(), epochMs: T0 + 21 * DAY + 3 * HOUR },
  startsAtMs: T0 + 21 * DAY,
  endsAtMs: T0 + 21 * DAY + 3 * HOUR,
  url: undefined,
  venue: undefined,
  currency: 'EUR',
};
/**
 * Five similar finished events (same capacity, 42-day sales): straight sales to 60-100% of
 * capacity, so 21 days before their start they stood at 30-50% (median 40%), and sold 0.6-1 an
 * hour (median 0.79) then.
 */
const FINAL_SHARES = [0.6, 0.7, 0.8, 0.9, 1];

let opened: StoreHandle | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const textOf = (message: SlackMessage) => `${message.text} ${JSON.stringify(message.blocks ?? [])}`;

async function rig(soldBefore: (at: number) => number, finalShares = FINAL_SHARES) {
  opened = await openStore('sqlite://:memory:');
  const clock = new ManualClock(T0);
  const history = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
  for (const [i, share] of finalShares.entries()) {
    const startsAtMs = T0 - (10 + i) * DAY;
    const dates = { startsAtMs, endsAtMs: startsAtMs + 3 * HOUR };
    for (let at = startsAtMs - 42 * DAY; at <= startsAtMs; at += 6 * HOUR) {
      const gone = (at - (startsAtMs - 42 * DAY)) / (42 * DAY);
      await history.record(
        `evt_past${i}`,
        { at, sold: Math.round(share * CAPACITY * gone), capacity: CAPACITY },
        dates,
      );
    }
  }
  // This event's own history until now, as reports read it.
  const dates = { startsAtMs: EVENT.startsAtMs, endsAtMs: EVENT.endsAtMs };
  for (let at = OPENED; at < T0; at += 6 * HOUR)
    await history.record(EVENT.id, { at, sold: soldBefore(at), capacity: CAPACITY }, dates);
  const insights = salesInsights({
    history,
    eventInfo: (id) => (id === EVENT.id ? { startsAtMs: EVENT.startsAtMs, timezone: 'UTC' } : undefined),
    clock,
  });
  const { service, cards, alerts, broadcasts, alertedIn } = slackWatchService({
    handle: opened,
    clock,
    // As `build-watches.ts` hands them over.
    forecast: async (eventId, report) => {
      const insight = await insights.of(eventId, report);
      return (
        insight && { forecast: insight.forecast, startsAtMs: insight.startsAtMs, comparables: insight.comparables }
      );
    },
  });
  /** A report read now: a point of the event's history, as every read records one. */
  const read = async (ticketsSold: number): Promise<EventReport> => {
    const report = { eventId: EVENT.id, ticketsSold, capacity: CAPACITY };
    const point = salesPointOf(report, clock.now());
    if (point) await history.record(EVENT.id, point, dates);
    return report;
  };
  /** The event's report read now and carried to its watches. */
  const check = async (ticketsSold: number) => service.observe(EVENT.id, await read(ticketsSold), clock.now());
  const watch = async (conditions: string, ticketsSold: number, conversation = 'C0OPS') => {
    const outcome = await setWatch(
      {
        watches: service,
        reportToWatch: async () => ({ report: await read(ticketsSold), readAt: clock.now() }),
        forecast: async (eventId, report) => (await insights.of(eventId, report))?.forecast,
        comparables: async (eventId, report) => (await insights.of(eventId, report))?.comparables,
        poke: () => undefined,
        clock,
        logger: silentLogger,
      },
      {
        conversation,
        personal: false,
        event: EVENT,
        eventName: EVENT.name as string,
        userId: 'U0ALICE',
        conditions,
        sharedConfirmed: false,
      },
      { fetching: async () => undefined },
    );
    expect(outcome?.kind).toBe('set');
    return outcome;
  };
  return { clock, cards, alerts, broadcasts, alertedIn, check, watch };
}

/** Straight sales from the opening to `share` of capacity now. */
const steadyTo = (share: number) => (at: number) => Math.round((share * CAPACITY * (at - OPENED)) / (T0 - OPENED));

describe('behind similar', () => {
  it('alerts once when sales fall below the similar events range at the same point, and again after a recovery', async () => {
    const { clock, cards, alerts, broadcasts, check, watch } = await rig(steadyTo(0.32));
    await watch('behind similar', 320);
    expect(alerts).toHaveLength(0);
    expect(textOf(cards.at(-1) as SlackMessage)).toContain(
      '32% sold with 21 days to go; similar events were at 30-50% (median 40%) then',
    );

    // A week with 10 sold: 33% with 14 days to go, when the similar events stood at 40-67%.
    await clock.advance(7 * DAY);
    await check(330);
    expect(alerts).toHaveLength(1);
    expect(textOf(alerts[0] as SlackMessage)).toContain(
      "*Now Night* is behind similar events: 33% sold with 14 days to go, below similar events' 40-67% (median 53%) then",
    );
    // Still behind an hour on: no second alert.
    await clock.advance(HOUR);
    await check(331);
    expect(alerts).toHaveLength(1);

    // Back within their range (at least 2 points above their lowest), then behind again: alerted again.
    await clock.advance(HOUR);
    await check(450);
    expect(alerts).toHaveLength(1);
    await clock.advance(5 * DAY);
    await check(455);
    expect(alerts).toHaveLength(2);
    // A threshold: also sent to the channel.
    expect(broadcasts).toEqual([true, true]);
  });

  it('does not alert on an event that was already behind when the watch was set', async () => {
    const { clock, cards, alerts, check, watch } = await rig(steadyTo(0.2));
    const outcome = await watch('behind similar', 200);
    expect(outcome?.kind === 'set' && outcome.alreadyCrossed).toEqual(['behind similar']);
    expect(textOf(cards.at(-1) as SlackMessage)).toContain('already crossed when the watch was set');
    await clock.advance(DAY);
    await check(205);
    expect(alerts).toHaveLength(0);
  });

  it('says how many similar events it needs when too few are known', async () => {
    const { cards, watch } = await rig(steadyTo(0.4), FINAL_SHARES.slice(0, 2));
    await watch('behind similar', 400);
    expect(textOf(cards.at(-1) as SlackMessage)).toContain(
      'cannot be checked: 2 similar finished events reach back this far; comparing needs 3',
    );
  });
});

describe('flatline', () => {
  it('alerts once a pause is unlikely at the similar events pace, saying how unlikely, and re-arms after a sale', async () => {
    const { clock, cards, alerts, broadcasts, check, watch } = await rig(steadyTo(0.4));
    await watch('flatline', 400);
    // Three hours without a sale: the similar events sold about 2.4 then, a pause is about 9% likely.
    await clock.advance(3 * HOUR);
    await check(400);
    expect(alerts).toHaveLength(0);
    // Seven hours: about 5.6 expected, a pause about 0.3% likely.
    await clock.advance(4 * HOUR);
    await check(400);
    expect(alerts).toHaveLength(1);
    const alert = textOf(alerts[0] as SlackMessage);
    expect(alert).toMatch(
      /\*Now Night\* may have a sales problem: no sale for 7 hours; similar events sold about 5\.\d in the same span/,
    );
    expect(alert).toMatch(/a pause this long has about a 0\.\d+% chance at their pace \(Poisson\)/);
    expect(alert).toContain('a checkout problem is more likely than a quiet day');
    await clock.advance(HOUR);
    await check(400);
    expect(alerts).toHaveLength(1);
    expect(textOf(cards.at(-1) as SlackMessage)).toMatch(
      /`flatline`: :white_check_mark: crossed · now a pause this long: about 0\.\d+% likely/,
    );

    // A sale starts the span anew (re-armed); seven more quiet hours alert again.
    await clock.advance(HOUR);
    await check(401);
    expect(textOf(cards.at(-1) as SlackMessage)).toContain(
      '`flatline`: watching (crossed 1 time before) · now no pause to judge',
    );
    await clock.advance(7 * HOUR);
    await check(401);
    expect(alerts).toHaveLength(2);
    // Movement, like a stall: kept in the card's thread.
    expect(broadcasts).toEqual([false, false]);
  });

  it('never counts a pause from before the watch was set', async () => {
    // No sale at all for the three days before the watch.
    const { clock, alerts, check, watch } = await rig((at) => Math.min(steadyTo(0.4)(at), steadyTo(0.4)(T0 - 3 * DAY)));
    const before = steadyTo(0.4)(T0 - 3 * DAY);
    await watch('flatline', before);
    expect(alerts).toHaveLength(0);
    await clock.advance(2 * HOUR);
    await check(before);
    expect(alerts).toHaveLength(0);
    // Seven hours since the watch was set: now it alerts, counting from then.
    await clock.advance(5 * HOUR);
    await check(before);
    expect(alerts).toHaveLength(1);
    expect(textOf(alerts[0] as SlackMessage)).toContain('no sale for 7 hours');
  });
});

describe('flatline on a sold-out event', () => {
  it('does not read no sale as a problem when no seat is left', async () => {
    const { clock, alerts, check, watch } = await rig(steadyTo(0.4));
    await watch('flatline', 400);
    await clock.advance(HOUR);
    await check(CAPACITY);
    await clock.advance(12 * HOUR);
    await check(CAPACITY);
    expect(alerts).toHaveLength(0);
  });
});

describe('flatline in a second conversation', () => {
  it('counts its pause from when its own watch was set, not from the event’s last sale', async () => {
    const { clock, alertedIn, check, watch } = await rig(steadyTo(0.4));
    await watch('flatline', 400);
    await clock.advance(5 * HOUR);
    await check(400);
    // Five quiet hours already: a watch set now elsewhere starts its span now.
    await watch('flatline', 400, 'C0MKT');
    await clock.advance(3 * HOUR);
    await check(400);
    expect(alertedIn).toEqual(['C0OPS']);
    await clock.advance(4 * HOUR);
    await check(400);
    expect(alertedIn).toEqual(['C0OPS', 'C0MKT']);
  });
});

describe('the two conditions in words', () => {
  it('reads "behind similar" and "flatline" (and their other spellings) back as themselves', () => {
    const parsed = parseConditions('behind similar events, sales flat-line', { ticketsSold: 3, capacity: 10 });
    expect('conditions' in parsed && parsed.conditions.map(describeCondition)).toEqual(['behind similar', 'flatline']);
    expect(parseConditions('Behind Similar, FLATLINE')).toEqual({
      conditions: [{ kind: 'behind-similar' }, { kind: 'flatline' }],
    });
  });

  it('is accepted wherever the report has the figures it reads, compared at each check', () => {
    expect(cannotCheck({ kind: 'behind-similar' }, { ticketsSold: 3, capacity: 10 })).toBeUndefined();
    expect(cannotCheck({ kind: 'flatline' }, { ticketsSold: 3 })).toBeUndefined();
    expect(cannotCheck({ kind: 'behind-similar' }, { ticketsSold: 3 })).toBe(
      'the report has no tickets sold of a capacity',
    );
    expect(cannotCheck({ kind: 'flatline' }, { checkIns: 3 })).toBe('the report has no tickets sold');
  });

  it('is left out by --except similar, behind or flatline', () => {
    const both = [{ kind: 'behind-similar' as const }, { kind: 'flatline' as const }, { kind: 'sold-out' as const }];
    expect(exceptConditions(both, ['similar']).kept).toEqual([{ kind: 'sold-out' }]);
    expect(exceptConditions(both, ['flatline']).excepted).toEqual(['flatline']);
    expect(exceptConditions(both, ['behind']).excepted).toEqual(['behind similar']);
  });

  it('is offered in the form where the event has similar events to compare with now', () => {
    const report = shown({ ticketsSold: 300, capacity: 1000 });
    const compared = {
      kind: 'compared' as const,
      beforeMs: DAY,
      share: 0.3,
      capacity: 1000,
      count: 3,
      atThisPoint: { low: 0.2, median: 0.3, high: 0.4 },
      final: { low: 0.7, median: 0.8, high: 0.9 },
      alike: [],
      members: [],
    };
    expect(conditionsOffered(report, undefined, compared)).toEqual(
      expect.arrayContaining([{ kind: 'behind-similar' }, { kind: 'flatline' }]),
    );
    const tooFew = { kind: 'too-few' as const, found: 2, needs: 3, beforeMs: DAY, share: 0.3 };
    expect(conditionsOffered(report, undefined, tooFew).map((c) => c.kind)).not.toContain('flatline');
  });
});
