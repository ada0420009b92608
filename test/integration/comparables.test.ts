import { afterEach, describe, expect, it } from 'vitest';
import { isListedUpcoming } from '../../src/catalog/is-upcoming.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command, openHome, watchDirectly } from '../helpers/bot-actions.js';
import { eventBody, postSignedJson } from '../helpers/slack-requests.js';
import { GUEST } from './figures-gate-rig.js';

/**
 * Issue 45: where an event stands against the organization's similar finished events, as the real
 * Bolt app says it (signed requests, the simulator over HTTP, SQLite): in the report with the
 * similar events' band in its sales chart, and on App Home, through the figures rule.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/**
 * Four finished events of `capacity` seats whose sales ran `periodMs` and sold straight to 60-90%,
 * and this event's own history: opened `periodMs` before its start, 3 reads up to now at `share`.
 */
async function historiesFor(r: BotRig, event: { id: string; startsAtMs: number; capacity: number }, share: number) {
  const now = Date.now();
  const periodMs = event.startsAtMs - (now - 10 * DAY);
  for (const [i, final] of [0.6, 0.7, 0.8, 0.9].entries()) {
    const startsAtMs = now - (5 + i) * DAY;
    const opens = startsAtMs - periodMs;
    const dates = { startsAtMs, endsAtMs: startsAtMs + 3 * HOUR };
    for (let step = 0; step <= 40; step += 1) {
      const at = opens + (periodMs * step) / 40;
      const sold = Math.round((final * event.capacity * step) / 40);
      await r.bot.history.record(`evt_past_${event.id}_${i}`, { at, sold, capacity: event.capacity }, dates);
    }
  }
  const dates = { startsAtMs: event.startsAtMs };
  const opens = now - 10 * DAY;
  for (const at of [opens, now - 5 * DAY, now - HOUR]) {
    const sold = Math.round((share * event.capacity * (at - opens)) / (now - opens));
    await r.bot.history.record(event.id, { at, sold, capacity: event.capacity }, dates);
  }
  r.sim.setFigures(event.id, { ticketsSold: Math.round(share * event.capacity) });
}

describe('an event against similar finished events', () => {
  it('a report says where it stands, and its sales chart draws their band', async () => {
    rig = await startBot();
    const r = rig;
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 10 * DAY && e.capacity >= 100,
    );
    if (!event) throw new Error('no event ten days ahead');
    await historiesFor(r, event, 0.2);
    await command(r, `report ${event.id}`);
    const shown = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (c) => c.method === 'chat.update' && JSON.stringify(c.args.blocks).includes('data_visualization'),
      ),
    );
    const text = String(shown.args.text);
    expect(text).toMatch(
      /20% sold with \d+ days to go; similar events were at \d+-\d+% \(median \d+%\) then, and ended at 60-90% \(4 events\)\./,
    );
    const blocks = JSON.stringify(shown.args.blocks);
    expect(blocks).toContain(':bar_chart: 20% sold with');
    for (const name of ['Similar: lowest', 'Similar: median', 'Similar: highest']) expect(blocks).toContain(name);
    // Within Slack's two charts a message.
    expect(blocks.split('"data_visualization"').length - 1).toBeLessThanOrEqual(2);
  });

  it('App Home says where the upcoming events stand, to members and not to guests', async () => {
    rig = await startBot();
    const r = rig;
    r.slack.people.set(GUEST, { is_restricted: true });
    // One of the five upcoming events App Home lists, an hour or more from its start whatever the
    // time of day the suite runs (the first one listed may start in minutes, or have started).
    const snapshot = await r.bot.catalog.snapshot();
    const listed = snapshot.events
      .filter((e) => isListedUpcoming(e, Date.now()))
      .slice(0, 5)
      .find((e) => e.startsAtMs > Date.now() + HOUR);
    const event = r.sim.catalog.events.find((e) => e.id === listed?.id);
    if (!event) throw new Error('none of the five events listed starts an hour or more from now');
    await historiesFor(r, event, 0.3);
    const home = await openHome(r, 'U0EDITOR');
    expect(home).toMatch(/:bar_chart: 30% sold with \d+ (days?|hours?) to go; similar events were at/);
    const guest = await openHome(r, GUEST);
    expect(guest).toContain('Upcoming events');
    expect(guest).not.toContain('similar events');
  });

  it('the details panel (flexpane) says where it stands to an employee, and not to a guest', async () => {
    rig = await startBot({
      env: {
        EVENT_PAGE_URL: 'https://tickets.example.com/e/{id}',
        TICKETING_REPORT_LIMIT: '3/1s',
        WATCH_MIN_INTERVAL: '1s',
      },
    });
    const r = rig;
    r.slack.people.set(GUEST, { is_restricted: true });
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 10 * DAY && e.capacity >= 100,
    );
    if (!event) throw new Error('no event ten days ahead');
    await historiesFor(r, event, 0.25);
    // A watch's check puts a report at hand (the flexpane makes no report call of its own).
    const known = (await r.bot.catalog.snapshot()).byId.get(event.id);
    if (!known) throw new Error('the catalog lists the event');
    const dates = { id: event.id, name: event.name, startsAtMs: known.startsAtMs, endsAtMs: known.endsAtMs };
    await watchDirectly(r, 'C0009', dates, { userId: 'U0ALICE' });
    expect((await r.bot.watches.turn()).kind).toBe('checked');
    const fieldOf = async (user: string) => {
      const trigger = `trigger.${user}`;
      const answer = await postSignedJson(
        r.url,
        SIGNING_SECRET,
        eventBody({
          type: 'entity_details_requested',
          user,
          trigger_id: trigger,
          link: { url: `https://tickets.example.com/e/${event.id}`, domain: 'tickets.example.com' },
          external_ref: { id: event.id, type: 'event' },
          channel: 'C0001',
          message_ts: '1700000300.000100',
          event_ts: '1700000300.000200',
        }),
      );
      expect(answer.status).toBe(200);
      const call = await r.slack.waitFor(() =>
        r.slack.calls.find((c) => c.method === 'entity.presentDetails' && c.args.trigger_id === trigger),
      );
      if (!call.args.metadata) throw new Error(JSON.stringify(call.args));
      const fields = (call.args.metadata as { entity_payload: { custom_fields?: { key: string; value?: unknown }[] } })
        .entity_payload.custom_fields;
      return fields?.find((field) => field.key === 'similar_events')?.value;
    };
    expect(String(await fieldOf('U0ALICE'))).toMatch(/^25% sold with \d+ days to go; similar events were at \d+-\d+%/);
    expect(await fieldOf(GUEST)).toBeUndefined();
  });

  it('the sales digest says where each watched event stands', async () => {
    rig = await startBot({ compose: { digestRetryBaseMs: 100, digestChannelSpacingMs: 10 } });
    const r = rig;
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 10 * DAY && e.capacity >= 100,
    );
    if (!event) throw new Error('no event ten days ahead');
    await historiesFor(r, event, 0.35);
    const said = async (text: string) => {
      const { responseUrl } = await command(r, text);
      const path = new URL(responseUrl).pathname;
      const answer = await r.slack.waitFor(() =>
        r.slack.responses.findLast((c) => c.method === path && !String(c.args.text).startsWith(':hourglass')),
      );
      return JSON.stringify(answer.args);
    };
    expect(await said(`watch ${event.id}: sold out`)).not.toContain('warning');
    expect(await said('digest on --sales daily 08:00 UTC')).toContain('Daily sales digest on');
    expect(await said('digest now --sales')).toContain("Posted today's sales digest.");
    const digest = r.slack.calls.find(
      (c) => c.method === 'chat.postMessage' && JSON.stringify(c.args.blocks ?? []).includes('Daily sales digest'),
    );
    expect(JSON.stringify(digest?.args.blocks)).toMatch(
      /35% sold with \d+ days to go; similar events were at \d+-\d+% \(median \d+%\) then, and ended at 60-90% \(4 events\)/,
    );
  });

  it('`/events watch <id>: behind similar, flatline` sets both, and the card says where the event stands', async () => {
    rig = await startBot();
    const r = rig;
    const event = r.sim.catalog.events.find(
      (e) => e.status === 'published' && e.startsAtMs > Date.now() + 10 * DAY && e.capacity >= 100,
    );
    if (!event) throw new Error('no event ten days ahead');
    await historiesFor(r, event, 0.45);
    const { responseUrl } = await command(r, `watch ${event.id}: behind similar, flatline`);
    const path = new URL(responseUrl).pathname;
    const answer = await r.slack.waitFor(() =>
      r.slack.responses.findLast((c) => c.method === path && !String(c.args.text).startsWith(':hourglass')),
    );
    expect(JSON.stringify(answer.args)).not.toContain('warning');
    const stored = await r.bot.watches.list({ channel: 'C0001' });
    expect(stored[0]?.watch.conditions.map((c) => c.key)).toEqual(['behind similar', 'flatline']);
    const card = await r.slack.waitFor(() =>
      r.slack.calls.findLast(
        (c) =>
          (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
          JSON.stringify(c.args.blocks ?? []).includes(':bar_chart: 45% sold with'),
      ),
    );
    expect(JSON.stringify(card.args.blocks)).toContain('similar events were at');
  });
});
