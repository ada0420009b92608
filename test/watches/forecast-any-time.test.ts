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
import { ManualClock } from '../helpers/clocks.js';
import { slackWatchService } from './slack-watch-service.js';

/**
 * Issue 35, item 4: a forecast condition set on a new event (one report, no history) is accepted,
 * its card says from when it can be judged, it is not judged (nor alerted) until then, and it
 * alerts once the history allows a forecast: driven on a clock the test moves.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-12-01T09:00:00Z');
const EVENT: TicketingEvent = {
  id: 'evt_new',
  name: 'New Night',
  status: 'published',
  timezone: 'UTC',
  start: { kind: 'instant', iso: new Date(T0 + 5 * DAY).toISOString(), epochMs: T0 + 5 * DAY },
  end: { kind: 'instant', iso: new Date(T0 + 5 * DAY + 3 * HOUR).toISOString(), epochMs: T0 + 5 * DAY + 3 * HOUR },
  startsAtMs: T0 + 5 * DAY,
  endsAtMs: T0 + 5 * DAY + 3 * HOUR,
  url: undefined,
  venue: undefined,
  currency: 'EUR',
};

let opened: StoreHandle | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

/** The card's and the replies' text as posted. */
const textOf = (message: SlackMessage) => JSON.stringify(message.blocks ?? []);

async function rig() {
  opened = await openStore('sqlite://:memory:');
  const clock = new ManualClock(T0);
  const history = new SalesHistory({ store: opened.keyValue, logger: silentLogger });
  const insights = salesInsights({
    history,
    eventInfo: () => ({ startsAtMs: EVENT.startsAtMs, timezone: 'UTC' }),
    clock,
  });
  const { service, cards, alerts } = slackWatchService({
    handle: opened,
    clock,
    forecast: async (eventId, report) => {
      const insight = await insights.of(eventId, report);
      return insight && { forecast: insight.forecast, startsAtMs: insight.startsAtMs };
    },
  });
  /** A report read now: a point of the event's history, as the report client records every read. */
  const read = async (ticketsSold: number): Promise<EventReport> => {
    const report = { eventId: EVENT.id, ticketsSold, capacity: 1000 };
    const point = salesPointOf(report, clock.now());
    if (point) await history.record(EVENT.id, point, { startsAtMs: EVENT.startsAtMs, endsAtMs: EVENT.endsAtMs });
    return report;
  };
  return { clock, service, insights, cards, alerts, read };
}

describe('a forecast condition set on a new event', () => {
  it('is accepted, says from when it is judged, stays quiet until then, and alerts once the history allows', async () => {
    const { clock, service, insights, cards, alerts, read } = await rig();
    const outcome = await setWatch(
      {
        watches: service,
        reportToWatch: async () => ({ report: await read(100), readAt: clock.now() }),
        forecast: async (eventId, report) => (await insights.of(eventId, report))?.forecast,
        poke: () => undefined,
        clock,
        logger: silentLogger,
      },
      {
        conversation: 'C0OPS',
        personal: false,
        event: EVENT,
        eventName: 'New Night',
        userId: 'U0ALICE',
        conditions: 'sells out before start',
        sharedConfirmed: false,
      },
      { fetching: async () => undefined },
    );
    expect(outcome?.kind).toBe('set');
    // The card says from when: 3 reports over 6 hours, the first read now.
    const card = textOf(cards.at(-1) as SlackMessage);
    expect(card).toContain('not judged yet: forecast from about');
    expect(card).toContain(`<!date^${(T0 + 6 * HOUR) / 1000}^`);
    expect(card).toContain('after 3 reports over 6 hours');

    // Selling fast, but two reports over three hours are no forecast yet: not judged, not alerted.
    await clock.advance(3 * HOUR);
    await service.observe(EVENT.id, await read(450), clock.now());
    expect(alerts).toHaveLength(0);
    expect(textOf(cards.at(-1) as SlackMessage)).toContain('not judged yet');

    // Six hours of history: the forecast projects a sell-out days before the start, alerted once.
    await clock.advance(3 * HOUR);
    await service.observe(EVENT.id, await read(800), clock.now());
    expect(alerts).toHaveLength(1);
    expect(textOf(alerts[0] as SlackMessage)).toContain('sells out before start');
    expect(textOf(cards.at(-1) as SlackMessage)).not.toContain('not judged yet');

    await clock.advance(HOUR);
    await service.observe(EVENT.id, await read(850), clock.now());
    expect(alerts).toHaveLength(1);
  });
});
