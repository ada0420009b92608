import { afterEach, describe, expect, it } from 'vitest';
import { eventLinks } from '../../src/catalog/event-links.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { eventBody, postSignedJson } from '../helpers/slack-requests.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const PAGE = 'https://tickets.example.com/e/{id}';
const unfurls = (r: BotRig) => r.slack.calls.filter((call) => call.method === 'chat.unfurl');
const reportCalls = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report')).length;

async function share(r: BotRig, event: Record<string, unknown>) {
  const answer = await postSignedJson(
    r.url,
    SIGNING_SECRET,
    eventBody({ type: 'link_shared', user: 'U0ALICE', ...event }),
  );
  expect(answer.status).toBe(200);
}

const published = (r: BotRig) =>
  r.sim.catalog.events.filter((event) => event.status === 'published' && event.startDate.includes('T'));

describe('event links unfold into event cards', () => {
  it('unfolds every event link of a message in one chat.unfurl keyed by each URL, and leaves the rest alone', async () => {
    rig = await startBot({ env: { EVENT_PAGE_URL: PAGE } });
    await rig.bot.catalog.snapshot();
    const [first, second] = published(rig);
    if (!first || !second) throw new Error('the seed has published events');
    const withPrefix = `https://tickets.example.com/e/${first.id}`;
    const bare = `https://tickets.example.com/e/${second.id.slice('evt_'.length)}?ref=slack`;
    const unknown = 'https://tickets.example.com/e/evt_00000000-0000-4000-8000-000000000000';
    const otherPage = 'https://tickets.example.com/about';
    await share(rig, {
      channel: 'C0001',
      message_ts: '1700000000.000100',
      links: [withPrefix, bare, unknown, otherPage].map((url) => ({ url, domain: 'tickets.example.com' })),
    });
    const call = await rig.slack.waitFor(() => unfurls(rig as BotRig)[0]);
    expect(call.args.channel).toBe('C0001');
    expect(call.args.ts).toBe('1700000000.000100');
    const sent = call.args.unfurls as Record<string, { blocks: unknown[] }>;
    expect(Object.keys(sent).sort()).toEqual([withPrefix, bare].sort());
    expect(JSON.stringify(sent[withPrefix]?.blocks)).toContain(first.id);
    expect(JSON.stringify(sent[bare]?.blocks)).toContain(second.id);
    expect(JSON.stringify(sent[withPrefix]?.blocks)).toContain('Your time');
    expect(unfurls(rig)).toHaveLength(1);
    expect(reportCalls(rig)).toBe(0);
  });

  it('answers a link still in the composer with its unfurl_id and source, and adds a report at hand', async () => {
    rig = await startBot({ env: { EVENT_PAGE_URL: PAGE, TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s' } });
    const snapshot = await rig.bot.catalog.snapshot();
    // A watch follows its event's dates in the catalog: one that has not ended.
    const event = published(rig)
      .map((each) => snapshot.byId.get(each.id))
      .find((each) => each !== undefined && each.endsAtMs > Date.now());
    if (!event) throw new Error('the seed has upcoming published events');
    await rig.bot.watches.watch({
      channel: 'C0009',
      personal: false,
      event: { id: event.id, name: event.name ?? event.id, startsAtMs: event.startsAtMs, endsAtMs: event.endsAtMs },
      userId: 'U0ALICE',
      conditions: [{ kind: 'sold-out' }],
    });
    expect((await rig.bot.watches.turn()).kind).toBe('checked');
    const reportsBefore = reportCalls(rig);
    const url = `https://tickets.example.com/e/${event.id}`;
    await share(rig, {
      unfurl_id: 'C123456.789.abc',
      source: 'composer',
      links: [{ url, domain: 'tickets.example.com' }],
    });
    const call = await rig.slack.waitFor(() => unfurls(rig as BotRig)[0]);
    expect(call.args).toMatchObject({ unfurl_id: 'C123456.789.abc', source: 'composer' });
    const blocks = JSON.stringify((call.args.unfurls as Record<string, unknown>)[url]);
    expect(blocks).toContain('Figures as of');
    expect(blocks).toContain('Tickets sold');
    expect(reportCalls(rig)).toBe(reportsBefore);
  });

  it('makes no call for links to unknown events or other pages', async () => {
    rig = await startBot({ env: { EVENT_PAGE_URL: PAGE } });
    await rig.bot.catalog.snapshot();
    await share(rig, {
      channel: 'C0001',
      message_ts: '1700000000.000200',
      links: [
        {
          url: 'https://tickets.example.com/e/evt_00000000-0000-4000-8000-000000000000',
          domain: 'tickets.example.com',
        },
        { url: 'https://tickets.example.com/blog/evt_x', domain: 'tickets.example.com' },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 300)); // nothing to poll for: the absence of a call
    expect(unfurls(rig)).toHaveLength(0);
  });
});

describe('EVENT_PAGE_URL', () => {
  it('refuses a template without one {id}, and reads ids with or without the prefix', () => {
    expect(() => loadConfig({ EVENT_PAGE_URL: 'https://tickets.example.com/e/' })).toThrow(ConfigError);
    expect(() => loadConfig({ EVENT_PAGE_URL: 'ftp://x/{id}' })).toThrow(ConfigError);
    // In the host, no link could ever match the one host the manifest lists.
    expect(() => loadConfig({ EVENT_PAGE_URL: 'https://{id}.example.com/' })).toThrow(ConfigError);
    const links = eventLinks('https://Tickets.Example.com/e/{bareId}/');
    expect(links.host).toBe('tickets.example.com');
    const id = 'evt_5611e4be-b0a7-4ae6-a078-4437c5ca30f3';
    expect(links.eventIdIn(`https://tickets.example.com/e/${id.slice(4)}/`)).toBe(id);
    expect(links.eventIdIn(`https://tickets.example.com/e/${id}/`)).toBeUndefined();
    expect(eventLinks(PAGE).eventIdIn(`HTTPS://TICKETS.EXAMPLE.COM/e/${id}#top`)).toBe(id);
    expect(
      eventLinks(PAGE).linksIn(
        `see <https://tickets.example.com/e/${id}|Jazz> and https://tickets.example.com/e/${id.slice(4)}`,
      ),
    ).toEqual([
      { url: `https://tickets.example.com/e/${id}`, eventId: id },
      { url: `https://tickets.example.com/e/${id.slice(4)}`, eventId: id },
    ]);
  });
});
