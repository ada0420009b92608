import { afterEach, describe, expect, it } from 'vitest';
import { eventLinks } from '../../src/catalog/event-links.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { reportCalls, watchDirectly } from '../helpers/bot-actions.js';
import { eventBody, postSignedJson } from '../helpers/slack-requests.js';
import { sleep } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const PAGE = 'https://tickets.example.com/e/{id}';
const unfurls = (r: BotRig) => r.slack.calls.filter((call) => call.method === 'chat.unfurl');
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
    rig = await startBot({ env: { EVENT_PAGE_URL: PAGE, UNFURL_STYLE: 'classic' } });
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

  // The composer's event names no conversation ("COMPOSER"): the figures wait for the posted message.
  it('answers a link still in the composer with its unfurl_id and source, with no figures: its conversation is not known', async () => {
    rig = await startBot({
      env: { EVENT_PAGE_URL: PAGE, UNFURL_STYLE: 'classic', TICKETING_REPORT_LIMIT: '3/1s', WATCH_MIN_INTERVAL: '1s' },
    });
    const snapshot = await rig.bot.catalog.snapshot();
    // A watch follows its event's dates in the catalog: one that has not ended.
    const event = published(rig)
      .map((each) => snapshot.byId.get(each.id))
      .find((each) => each !== undefined && each.endsAtMs > Date.now() + 3_600_000);
    if (!event) throw new Error('the seed has upcoming published events');
    await watchDirectly(
      rig,
      'C0009',
      { id: event.id, name: event.name ?? event.id, startsAtMs: event.startsAtMs, endsAtMs: event.endsAtMs },
      { userId: 'U0ALICE' },
    );
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
    expect(blocks).toContain(event.id);
    expect(blocks).not.toContain('Figures as of');
    expect(blocks).not.toContain('Tickets sold');
    expect(reportCalls(rig)).toBe(reportsBefore);
  });

  it('makes no call for links to unknown events or other pages', async () => {
    rig = await startBot({ env: { EVENT_PAGE_URL: PAGE, UNFURL_STYLE: 'classic' } });
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
    await sleep(300); // nothing to poll for: the absence of a call
    expect(unfurls(rig)).toHaveLength(0);
  });
});

/** Starts the bot with a watch's check of an upcoming event at hand: what an unfurl may show. */
async function withReportAtHand(env: Record<string, string> = {}) {
  const r = await startBot({
    env: {
      EVENT_PAGE_URL: PAGE,
      UNFURL_STYLE: 'classic',
      TICKETING_REPORT_LIMIT: '3/1s',
      WATCH_MIN_INTERVAL: '1s',
      ...env,
    },
  });
  rig = r;
  const snapshot = await r.bot.catalog.snapshot();
  const event = published(r)
    .map((each) => snapshot.byId.get(each.id))
    .find((each) => each !== undefined && each.endsAtMs > Date.now() + 3_600_000);
  if (!event) throw new Error('the seed has upcoming published events');
  await watchDirectly(
    r,
    'C0009',
    { id: event.id, name: event.name ?? event.id, startsAtMs: event.startsAtMs, endsAtMs: event.endsAtMs },
    { userId: 'U0ALICE' },
  );
  expect((await r.bot.watches.turn()).kind).toBe('checked');
  return { r, event, url: `https://tickets.example.com/e/${event.id}` };
}

let messageTs = 1700000100;
/** Shares `url` in a posted message of `channel`; the card chat.unfurl got for it. */
async function cardIn(r: BotRig, channel: string, url: string, extra: Record<string, unknown> = {}) {
  const before = unfurls(r).length;
  await share(r, {
    channel,
    message_ts: `${++messageTs}.000100`,
    links: [{ url, domain: 'tickets.example.com' }],
    ...extra,
  });
  const call = await r.slack.waitFor(() => unfurls(r)[before]);
  expect(call.args.channel).toBe(channel);
  return JSON.stringify((call.args.unfurls as Record<string, unknown>)[url]);
}

/** Lookups for the unfurls (the watch's own channel, C0009, is looked up by its checks). */
const conversationInfoCalls = (r: BotRig) =>
  r.slack.calls.filter((call) => call.method === 'conversations.info' && call.args.channel !== 'C0009');

describe('figures stay inside the organization', () => {
  it('shows figures in a channel of the organization alone, asking Slack once for several messages', async () => {
    const { r, event, url } = await withReportAtHand();
    for (let i = 0; i < 3; i += 1) {
      const card = await cardIn(r, 'C0INTERNAL', url);
      expect(card).toContain(event.id);
      expect(card).toContain('Figures as of');
      expect(card).toContain('Tickets sold');
    }
    expect(conversationInfoCalls(r)).toHaveLength(1);
  });

  it('asks Slack once for a burst of links shared at the same time', async () => {
    const { r, url } = await withReportAtHand();
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        share(r, {
          channel: 'C0BURST',
          message_ts: `1700000900.00010${n}`,
          links: [{ url, domain: 'tickets.example.com' }],
        }),
      ),
    );
    await r.slack.waitFor(() => (unfurls(r).length === 4 ? true : undefined));
    expect(unfurls(r).every((call) => JSON.stringify(call.args.unfurls).includes('Tickets sold'))).toBe(true);
    expect(conversationInfoCalls(r)).toHaveLength(1);
  });

  it('shows no figures in a channel shared with another organization (Slack Connect)', async () => {
    const { r, event, url } = await withReportAtHand();
    r.slack.conversations.set('C0PARTNER', { is_shared: true, is_ext_shared: true });
    const card = await cardIn(r, 'C0PARTNER', url);
    expect(card).toContain(event.id);
    expect(card).not.toContain('Figures as of');
    expect(card).not.toContain('Tickets sold');
    expect(card).not.toMatch(/revenue/i);
    // The channel of the organization next to it still shows them.
    expect(await cardIn(r, 'C0INTERNAL', url)).toContain('Tickets sold');
  });

  it('shows no figures where the bot is not a member', async () => {
    const { r, event, url } = await withReportAtHand();
    const byEvent = await cardIn(r, 'C0NOTIN', url, { is_bot_user_member: false });
    expect(byEvent).toContain(event.id);
    expect(byEvent).not.toContain('Tickets sold');
    r.slack.conversations.set('C0NOTIN2', { is_member: false });
    const byInfo = await cardIn(r, 'C0NOTIN2', url);
    expect(byInfo).toContain(event.id);
    expect(byInfo).not.toContain('Tickets sold');
  });

  it('shows no figures in a DM or group DM with a person of another organization', async () => {
    const { r, event, url } = await withReportAtHand();
    r.slack.conversations.set('D0PARTNER', { is_im: true, user: 'U0PARTNER' });
    r.slack.userTeams.set('U0PARTNER', 'T0OTHER');
    const dm = await cardIn(r, 'D0PARTNER', url);
    expect(dm).toContain(event.id);
    expect(dm).not.toContain('Tickets sold');
    r.slack.conversations.set('G0MIXED', { is_channel: false, is_group: true, is_mpim: true, is_member: true });
    r.slack.members.set('G0MIXED', ['UBOT', 'U0ALICE', 'U0PARTNER']);
    expect(await cardIn(r, 'G0MIXED', url)).not.toContain('Tickets sold');
    // With colleagues only, the figures show.
    r.slack.conversations.set('D0COLLEAGUE', { is_im: true, user: 'U0ALICE' });
    expect(await cardIn(r, 'D0COLLEAGUE', url)).toContain('Tickets sold');
    r.slack.conversations.set('G0TEAM', { is_channel: false, is_group: true, is_mpim: true, is_member: true });
    r.slack.members.set('G0TEAM', ['UBOT', 'U0ALICE', 'U0BOB']);
    expect(await cardIn(r, 'G0TEAM', url)).toContain('Tickets sold');
  });

  it('shows no figures when Slack cannot say who is in the conversation', async () => {
    const { r, event, url } = await withReportAtHand();
    r.slack.failNext('conversations.info', 'internal_error');
    const card = await cardIn(r, 'C0UNKNOWN', url);
    expect(card).toContain(event.id);
    expect(card).not.toContain('Tickets sold');
    expect(conversationInfoCalls(r)).toHaveLength(1);
  });

  it('UNFURL_FIGURES=off shows figures nowhere, asking Slack nothing', async () => {
    expect(loadConfig({ UNFURL_FIGURES: 'off' }).slack.unfurlFigures).toBe('off');
    const { r, event, url } = await withReportAtHand({ UNFURL_FIGURES: 'off' });
    const card = await cardIn(r, 'C0INTERNAL', url);
    expect(card).toContain(event.id);
    expect(card).not.toContain('Tickets sold');
    expect(conversationInfoCalls(r)).toHaveLength(0);
  });

  it('UNFURL_FIGURES=everywhere shows figures in shared channels too, but never where it is not known, nor for a guest', async () => {
    expect(loadConfig({ UNFURL_FIGURES: 'everywhere' }).slack.unfurlFigures).toBe('everywhere');
    const { r, url } = await withReportAtHand({ UNFURL_FIGURES: 'everywhere' });
    r.slack.conversations.set('C0PARTNER', { is_shared: true, is_ext_shared: true });
    expect(await cardIn(r, 'C0PARTNER', url)).toContain('Tickets sold');
    // The composer's conversation is not known yet: what is not known is not allowed.
    await share(r, { unfurl_id: 'C123.456.def', source: 'composer', links: [{ url, domain: 'tickets.example.com' }] });
    const composed = await r.slack.waitFor(() => unfurls(r).find((call) => call.args.unfurl_id === 'C123.456.def'));
    expect(JSON.stringify(composed.args.unfurls)).not.toContain('Tickets sold');
    // The person who shared the link is asked about too: a guest's link unfolds without figures.
    r.slack.people.set('U0GUEST', { is_restricted: true });
    expect(await cardIn(r, 'C0PARTNER', url, { user: 'U0GUEST' })).not.toContain('Tickets sold');
    expect(await cardIn(r, 'C0INTERNAL', url, { user: 'U0GUEST' })).not.toContain('Tickets sold');
  });

  it('UNFURL_FIGURES takes internal (the default), off or everywhere', () => {
    expect(loadConfig({}).slack.unfurlFigures).toBe('internal');
    expect(() => loadConfig({ UNFURL_FIGURES: 'sometimes' })).toThrow(
      /UNFURL_FIGURES: expected one of internal, off, everywhere, got "sometimes"/,
    );
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
