import { describe, expect, it } from 'vitest';
import {
  eventCardMessage,
  eventChoicesMessage,
  eventListMessage,
  FINISH_COMMAND_ACTION,
  PICK_SHOW_ACTION,
} from '../../src/render/event-blocks.js';
import { describeEventTime } from '../../src/render/event-time.js';
import { md } from '../../src/render/mrkdwn.js';
import { eventSchema } from '../../src/ticketing/schemas.js';

const uuid = (n: number) => `3f2c1a9e-8b7d-4c6e-9f01-${String(n).padStart(12, '0')}`;
const event = (fields: Record<string, unknown>, n = 1) =>
  eventSchema.parse({ id: `evt_${uuid(n)}`, name: 'Jazz Night', status: 'published', ...fields });

describe('event times in the event’s own zone', () => {
  it('shows Kathmandu (+05:45) local time', () => {
    const e = event({ startDate: '2026-12-01T13:15:00Z', endDate: '2026-12-01T16:15:00Z', timezone: 'Asia/Kathmandu' });
    expect(describeEventTime(e)).toBe('Tue, 1 Dec 2026, 19:00–22:00 (UTC+05:45, Asia/Kathmandu)');
  });

  it("shows St. John's (-03:30) local time", () => {
    const e = event({
      startDate: '2026-12-01T22:30:00Z',
      endDate: '2026-12-02T01:30:00Z',
      timezone: 'America/St_Johns',
    });
    expect(describeEventTime(e)).toBe('Tue, 1 Dec 2026, 19:00–22:00 (UTC-03:30, America/St_Johns)');
  });

  it('gives each end its own offset across a DST change', () => {
    // London: 01:00 GMT becomes 02:00 BST on 2027-03-28.
    const e = event({ startDate: '2027-03-27T23:00:00Z', endDate: '2027-03-28T03:00:00Z', timezone: 'Europe/London' });
    expect(describeEventTime(e)).toBe(
      'Sat, 27 Mar 2027, 23:00 (GMT, UTC+00:00) – Sun, 28 Mar 2027, 04:00 (BST, UTC+01:00), Europe/London',
    );
  });

  it('shows an event crossing midnight with both dates', () => {
    const e = event({
      startDate: '2026-12-01T22:00:00-05:00',
      endDate: '2026-12-02T02:00:00-05:00',
      timezone: 'America/New_York',
    });
    expect(describeEventTime(e)).toBe(
      'Tue, 1 Dec 2026, 22:00 – Wed, 2 Dec 2026, 02:00 (EST, UTC-05:00, America/New_York)',
    );
  });

  it('shows plain-date events as a date range, never shifted by the zone', () => {
    const e = event({ startDate: '2026-06-01', endDate: '2026-06-03', timezone: 'Pacific/Auckland' });
    expect(describeEventTime(e)).toBe('Mon, 1 Jun – Wed, 3 Jun 2026 (all day, Pacific/Auckland)');
    const west = event({ startDate: '2026-06-01', endDate: '2026-06-01', timezone: 'America/Los_Angeles' });
    expect(describeEventTime(west)).toBe('Mon, 1 Jun 2026 (all day, America/Los_Angeles)');
  });
});

describe('event blocks', () => {
  it('renders a card with the reader’s own time and a fallback', () => {
    const card = eventCardMessage(
      event({
        startDate: '2026-12-01T13:15:00Z',
        endDate: '2026-12-01T16:15:00Z',
        timezone: 'Asia/Kathmandu',
        venue: { name: 'Hall', city: 'Kathmandu' },
      }),
    );
    expect(card).toMatchSnapshot();
    const unix = Date.UTC(2026, 11, 1, 13, 15) / 1000;
    expect(JSON.stringify(card.blocks)).toContain(`<!date^${unix}^{date_short_pretty} at {time}|2026-12-01 13:15 UTC>`);
  });

  it('marks cancelled and draft events', () => {
    const base = { startDate: '2026-12-01T10:00:00Z', endDate: '2026-12-01T11:00:00Z', timezone: 'UTC' };
    expect(JSON.stringify(eventCardMessage(event({ ...base, status: 'cancelled' })).blocks)).toContain('*Cancelled*');
    expect(JSON.stringify(eventCardMessage(event({ ...base, status: 'draft' })).blocks)).toContain('*Draft*');
  });

  it('escapes every piece of API text, including the header and the fallback', () => {
    const hostile = event({
      name: '<!channel> & <@U123|boss> <https://evil.example|click>',
      venue: '<!here>',
      startDate: '2026-12-01T10:00:00Z',
      endDate: '2026-12-01T11:00:00Z',
      timezone: 'UTC',
    });
    const all =
      JSON.stringify(eventCardMessage(hostile)) + JSON.stringify(eventListMessage({ title: md`x`, events: [hostile] }));
    expect(all).not.toMatch(/<!channel>|<!here>|<@U123|<https:/);
    expect(all).toContain('&lt;!channel&gt; &amp; &lt;@U123|boss&gt;');
  });

  it('keeps a long list inside 50 blocks with "...and N more" and fallback text', () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      event(
        { startDate: '2026-12-01T10:00:00Z', endDate: '2026-12-01T11:00:00Z', timezone: 'UTC', name: 'x'.repeat(5000) },
        i,
      ),
    );
    const message = eventListMessage({ title: md`Upcoming events`, events: many, nextValue: 'v' });
    expect(message.blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(message.blocks)).toContain('...and 25 more');
    expect(message.text.length).toBeGreaterThan(0);
    for (const block of message.blocks) {
      if (block.type === 'section' && block.text) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    }
  });
});

describe('a choice between events', () => {
  const when = { startDate: '2026-12-01T10:00:00Z', endDate: '2026-12-01T11:00:00Z', timezone: 'UTC' };
  const events = [event({ ...when, name: 'Jazz Night' }, 1), event({ ...when, name: 'Jazz Brunch' }, 2)];
  const accessories = (message: { blocks: unknown[] }) =>
    message.blocks.flatMap((block) => {
      const accessory = (block as { accessory?: { action_id: string; value: string } }).accessory;
      return accessory ? [accessory] : [];
    });

  it('gives each event a button that finishes the command with it', () => {
    const action = { verb: 'Watch', command: (id: string) => `watch ${id}: sold >= 90% --me` };
    const message = eventChoicesMessage({ events, query: 'jazz', action, asOf: 0 });
    expect(accessories(message)).toMatchObject(
      events.map((each) => ({ action_id: FINISH_COMMAND_ACTION, value: `watch ${each.id}: sold >= 90% --me` })),
    );
  });

  it('falls back to Show buttons, saying why, when the command is too long to carry on a button', () => {
    const action = { verb: 'Watch', command: (id: string) => `watch ${id}: ${'sold >= 1, '.repeat(200)}` };
    const message = eventChoicesMessage({ events, query: 'jazz', action, asOf: 0 });
    expect(accessories(message)).toMatchObject(events.map((each) => ({ action_id: PICK_SHOW_ACTION, value: each.id })));
    expect(JSON.stringify(message.blocks)).toContain('too long to carry on a button');
  });
});

describe('one event matching', () => {
  it('is said in the singular, with no "which one?" to answer', () => {
    const one = event({ startDate: '2026-12-01T10:00:00Z', endDate: '2026-12-01T11:00:00Z', timezone: 'UTC' }, 7);
    const text = JSON.stringify(eventChoicesMessage({ events: [one], query: 'jazz', action: 'show', asOf: 0 }).blocks);
    expect(text).toContain('1 event matches');
    expect(text).not.toContain('which one');
  });
});
