import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { seedSalesHistory } from '../../src/sandbox/seed-sales-history.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import {
  buttonValue,
  click,
  command,
  type Json,
  nthResponse,
  openHome,
  publishedPromo,
  watchDirectly,
} from '../helpers/bot-actions.js';

/*
 * Issue 46: the MCP server, driven by the official SDK's client over HTTP against the real bot
 * (Bolt's HTTP receiver with /mcp beside /slack/events, SQLite, the simulator, a fake Slack).
 * Three reports a second, so that seven reports at once wait in the queue.
 */

let rig: BotRig;
const clients: Client[] = [];

beforeAll(async () => {
  rig = await startBot({
    env: { MCP_SERVER: 'on', TICKETING_REPORT_LIMIT: '3/1s' },
    sim: { reportLimit: { limit: 3, windowMs: 1_000 }, eventCount: 20 },
  });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await rig?.close();
});

const mcpUrl = (r: BotRig) => r.url.replace('/slack/events', '/mcp');

/** `/events mcp token` as `user`: the token from the private answer. */
async function tokenFor(r: BotRig, user: string): Promise<string> {
  const { responseUrl } = await command(r, 'mcp token', user);
  const answer = await nthResponse(r, responseUrl);
  const token = /eo_mcp_[A-Za-z0-9_-]+/.exec(JSON.stringify(answer))?.[0];
  if (!token) throw new Error(`no token in ${JSON.stringify(answer)}`);
  return token;
}

async function connect(r: BotRig, token: string): Promise<Client> {
  const client = new Client({ name: 'eventops-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl(r)), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
const published = (r: BotRig): SimEvent[] => r.sim.catalog.events.filter((event) => event.status === 'published');
const statuses = (r: BotRig) => r.sim.stats().log.map((entry) => entry.status);

describe('the MCP server (official SDK client over HTTP, the real bot)', () => {
  it('answers 401 and nothing else without a token, with a bad one, or a revoked one', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(rig), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    for (const headers of [{}, { authorization: 'Bearer eo_mcp_not-a-real-token' }, { authorization: 'Basic x' }]) {
      const answer = await post(headers);
      expect(answer.status).toBe(401);
      expect(await answer.text()).toBe('');
    }
    const token = await tokenFor(rig, 'U0REVOKER');
    expect((await post({ authorization: `Bearer ${token}` })).status).not.toBe(401);
    const { responseUrl } = await command(rig, 'mcp revoke', 'U0REVOKER');
    expect(JSON.stringify(await nthResponse(rig, responseUrl))).toContain('revoked');
    const after = await post({ authorization: `Bearer ${token}` });
    expect(after.status).toBe(401);
    expect(await after.text()).toBe('');
  });

  it('keeps only a hash of the token, and App Home lists it with its last use', async () => {
    const token = await tokenFor(rig, 'U0HASHED');
    const client = await connect(rig, token);
    await client.listTools();
    const listing = await rig.bot.mcp?.tokens.of('U0HASHED');
    expect(listing?.lastUsedAt).toBeGreaterThan(0);
    // App Home lists it with its last use, never the token; nothing else the bot told Slack carries it.
    const home = await openHome(rig, 'U0HASHED');
    expect(home).toContain('Your MCP token');
    expect(home).toMatch(/last used <!date\^/);
    expect(JSON.stringify(rig.slack.calls)).not.toContain(token);
    // Nor does the log, at debug level.
    expect(rig.logs.join('\n')).not.toContain(token);
  });

  it('lists the tools, each read-only but the promo request, with input schemas', async () => {
    const client = await connect(rig, await tokenFor(rig, 'U0EDITOR'));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'event_report',
      'find_event',
      'forecast_track_record',
      'my_watches',
      'request_promo_change',
      'sales_forecast',
      'upcoming_events',
    ]);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(tool.name !== 'request_promo_change');
    }
  });

  it('finds an event by name, with "did you mean" for a typo, and answers bad input as a tool error', async () => {
    const client = await connect(rig, await tokenFor(rig, 'U0EDITOR'));
    const event = published(rig).find((each) => each.name.split(' ').length >= 2) as SimEvent;
    const found = await client.callTool({ name: 'find_event', arguments: { name: event.name } });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as Json).event).toMatchObject({ id: event.id });
    const typo = `${event.name.slice(0, -2)}xq`;
    const missed = await client.callTool({ name: 'find_event', arguments: { name: `${typo}zzzz` } });
    expect(missed.isError).toBe(true);
    expect(textOf(missed)).toMatch(/No event matches/);
    const bad = await client.callTool({ name: 'find_event', arguments: { name: '' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/name/i);
  });

  it('gets five reports at once within the report limit while people ask in Slack: 0 x 429, progress while queued', async () => {
    const client = await connect(rig, await tokenFor(rig, 'U0EDITOR'));
    rig.sim.resetStats();
    const events = published(rig).slice(0, 7);
    const progress: string[] = [];
    const inSlack = [
      command(rig, `report ${(events[5] as SimEvent).id}`, 'U0ALICE'),
      command(rig, `report ${(events[6] as SimEvent).id}`, 'U0BOB'),
    ];
    const results = await Promise.all(
      events.slice(0, 5).map((event) =>
        client.callTool({ name: 'event_report', arguments: { event: event.id } }, undefined, {
          onprogress: (note) => progress.push(String(note.message)),
          timeout: 30_000,
        }),
      ),
    );
    await Promise.all(inSlack);
    for (const [i, result] of results.entries()) {
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(textOf(result)).toContain('Report for');
      expect((result.structuredContent as Json).report).toBeTypeOf('object');
      expect((result.structuredContent as Json).event).toMatchObject({ id: (events[i] as SimEvent).id });
    }
    await expect.poll(() => rig.sim.stats().admittedReports, { timeout: 20_000 }).toBe(7);
    expect(statuses(rig).filter((status) => status === 429)).toEqual([]);
    expect(progress.some((message) => message.startsWith('Waiting in the report queue'))).toBe(true);
    // Each call is in the audit with the person and the tool.
    const audit = await rig.bot.activity.toolCalls();
    expect(audit.filter((call) => call.tool === 'event_report' && call.userId === 'U0EDITOR')).toHaveLength(5);
  });

  it('asks for a promo change that is written only after the click in Slack, once', async () => {
    const client = await connect(rig, await tokenFor(rig, 'U0EDITOR'));
    const promo = publishedPromo(rig);
    const before = promo.quantity;
    const writes = () => rig.sim.stats().log.filter((entry) => entry.path.endsWith('/update'));
    const writesBefore = writes().length;
    const asked = await client.callTool({
      name: 'request_promo_change',
      arguments: { event: promo.eventId, code: promo.code, quantity: before + 7 },
    });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    expect(textOf(asked)).toContain('Nothing is changed until you click Confirm');
    expect(writes()).toHaveLength(writesBefore);
    expect(promo.quantity).toBe(before);
    const dm = await rig.slack.waitFor(() =>
      rig.slack.calls.find(
        (call) =>
          call.method === 'chat.postMessage' &&
          call.args.channel === 'U0EDITOR' &&
          JSON.stringify(call.args.blocks ?? []).includes(PROMO_CONFIRM_ACTION),
      ),
    );
    const value = buttonValue(dm.args as Json, PROMO_CONFIRM_ACTION);
    await click(rig, PROMO_CONFIRM_ACTION, value, 'U0EDITOR', { channelId: 'D0EDITOR' });
    await expect.poll(() => promo.quantity).toBe(before + 7);
    expect(writes()).toHaveLength(writesBefore + 1);
    // The confirmation is single-use: a second click writes nothing.
    const again = await click(rig, PROMO_CONFIRM_ACTION, value, 'U0EDITOR', { channelId: 'D0EDITOR' });
    await nthResponse(rig, again.responseUrl);
    expect(writes()).toHaveLength(writesBefore + 1);
  });

  it('limits each person to MCP_CALLS_PER_PERSON tool calls a window, as a tool error in words, audited', async () => {
    const busy = await connect(rig, await tokenFor(rig, 'U0BUSY'));
    const name = (published(rig)[0] as SimEvent).id;
    for (let i = 0; i < 30; i += 1) {
      const found = await busy.callTool({ name: 'find_event', arguments: { name } });
      expect(found.isError).toBeFalsy();
    }
    const refused = await busy.callTool({ name: 'find_event', arguments: { name } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('Too many tool calls: at most 30 every 60 s per person');
    // Someone else is not held back by U0BUSY's calls.
    const other = await connect(rig, await tokenFor(rig, 'U0CALM'));
    expect((await other.callTool({ name: 'find_event', arguments: { name } })).isError).toBeFalsy();
    const audit = await rig.bot.activity.toolCalls();
    expect(audit.filter((call) => call.userId === 'U0BUSY').map((call) => call.outcome)).toEqual([
      'limited',
      ...Array(30).fill('ok'),
    ]);
  });

  it('gives a guest no token, and a token whose person became a guest no figures', async () => {
    rig.slack.people.set('U0GUEST', { is_restricted: true });
    const { responseUrl } = await command(rig, 'mcp token', 'U0GUEST');
    const refused = JSON.stringify(await nthResponse(rig, responseUrl));
    expect(refused).toContain('guests of the workspace get no MCP token');
    expect(refused).not.toMatch(/eo_mcp_/);
    // As if made a guest after the token was made: every call asks who the person is now.
    const issued = await rig.bot.mcp?.tokens.issue('U0GUEST');
    const client = await connect(rig, issued?.token as string);
    const reportCalls = rig.sim.stats().admittedReports;
    const event = published(rig)[0] as SimEvent;
    const report = await client.callTool({ name: 'event_report', arguments: { event: event.id } });
    expect(textOf(report)).toContain('guest');
    expect(report.structuredContent as Json).not.toHaveProperty('report');
    expect(textOf(report)).not.toContain('Report for');
    expect(rig.sim.stats().admittedReports).toBe(reportCalls);
    const record = await client.callTool({ name: 'forecast_track_record', arguments: {} });
    expect(textOf(record)).toContain('guest');
  });

  // Last: the watch it sets is checked in the background, spending report slots the tests above count.
  it('lists upcoming events with the list filters, the person’s watches, the forecast and its track record', async () => {
    const client = await connect(rig, await tokenFor(rig, 'U0WATCHER'));
    const all = await client.callTool({ name: 'upcoming_events', arguments: { limit: 3 } });
    expect(all.isError, textOf(all)).toBeFalsy();
    const listed = (all.structuredContent as { events: Json[]; total: number }).events;
    expect(listed).toHaveLength(3);
    const event = rig.sim.catalog.events.find((each) => each.id === listed[0]?.id) as SimEvent;
    const named = await client.callTool({ name: 'upcoming_events', arguments: { words: event.name } });
    expect((named.structuredContent as { events: Json[] }).events.map((each) => each.id)).toContain(event.id);
    const badRange = await client.callTool({ name: 'upcoming_events', arguments: { range: 'fortnight' } });
    expect(badRange.isError).toBe(true);

    expect(textOf(await client.callTool({ name: 'my_watches', arguments: {} }))).toBe('You have no watches.');
    await watchDirectly(
      rig,
      'U0WATCHER',
      { id: event.id, name: event.name, startsAtMs: Date.parse(event.startDate) },
      { userId: 'U0WATCHER' },
    );
    const watches = await client.callTool({ name: 'my_watches', arguments: {} });
    expect((watches.structuredContent as { watches: Json[] }).watches).toEqual([
      expect.objectContaining({ eventId: event.id, where: 'a DM to you' }),
    ]);

    const forecast = await client.callTool({ name: 'sales_forecast', arguments: { event: event.id } });
    expect(forecast.isError, textOf(forecast)).toBeFalsy();
    expect(textOf(forecast)).toContain(`Sales of ${event.name}`);
    expect((forecast.structuredContent as Json).comparison).toHaveProperty('kind');
    const record = await client.callTool({ name: 'forecast_track_record', arguments: {} });
    expect(record.isError, textOf(record)).toBeFalsy();
    expect(textOf(record)).not.toContain('guest');
  });
});

describe('the MCP server and similar events (issue 45)', () => {
  it('answers the forecast with where the event stands against similar events, and a guest with none', async () => {
    const r = await startBot({ env: { MCP_SERVER: 'on' } });
    try {
      // The sandbox's seeded history: the simulator's past gives the events listed first similar finished events.
      const now = Date.now();
      expect(await seedSalesHistory({ simulator: r.sim, history: r.bot.history, now })).toBeGreaterThan(0);
      const [event] = r.sim.catalog.events
        .filter(
          (each) =>
            each.status === 'published' &&
            r.sim.salesProfile(each.id).endMs > now &&
            // Minutes from its start, so it has not started by the time the bot answers.
            each.startsAtMs > now + 5 * 60_000,
        )
        .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id));
      if (!event) throw new Error('the simulator lists an upcoming event');

      const member = await connect(r, await tokenFor(r, 'U0MEMBER'));
      const forecast = await member.callTool({ name: 'sales_forecast', arguments: { event: event.id } });
      expect(forecast.isError, textOf(forecast)).toBeFalsy();
      expect(textOf(forecast)).toMatch(
        /\n\d+% sold with \d+ (hours?|days?) to go; similar events( at the same venue)?( on the same weekday)? were at \d+(-\d+)?% \(median \d+%\) then, and ended at \d+(-\d+)?% \(\d+ events\)\.$/,
      );
      const comparison = (forecast.structuredContent as { comparison: Json }).comparison as {
        kind: string;
        share: number;
        daysToGo: number;
        events: number;
        atThisPoint: { low: number; median: number; high: number };
        final: { low: number; median: number; high: number };
      };
      expect(comparison.kind).toBe('compared');
      expect(comparison.events).toBeGreaterThanOrEqual(3);
      // In days, to a tenth: 0 when the event listed first starts within the next few hours.
      expect(comparison.daysToGo).toBeCloseTo((event.startsAtMs - now) / 86_400_000, 0);
      for (const spread of [comparison.atThisPoint, comparison.final]) {
        expect(spread.low).toBeLessThanOrEqual(spread.median);
        expect(spread.median).toBeLessThanOrEqual(spread.high);
      }
      // The text and the structured content say the same.
      expect(textOf(forecast)).toContain(`${Math.round(comparison.share * 100)}% sold with`);
      expect(textOf(forecast)).toContain(`median ${Math.round(comparison.atThisPoint.median * 100)}%`);
      expect(textOf(forecast)).toContain(`(${comparison.events} events)`);

      // A guest's token, even with the report now at hand: no figures, no comparison.
      r.slack.people.set('U0GUEST', { is_restricted: true });
      const guest = await connect(r, (await r.bot.mcp?.tokens.issue('U0GUEST'))?.token as string);
      const withheld = await guest.callTool({ name: 'sales_forecast', arguments: { event: event.id } });
      expect(textOf(withheld)).toContain('guest');
      expect(textOf(withheld)).not.toMatch(/similar|sold with|\d+%/);
      expect(withheld.structuredContent ?? {}).not.toHaveProperty('comparison');
      expect(withheld.structuredContent ?? {}).not.toHaveProperty('forecast');
    } finally {
      await r.close();
    }
  });
});

describe('the MCP server and the person\u2019s own limit of reports waiting', () => {
  it('refuses a report beyond REPORTS_WAITING_PER_PERSON as a tool error in words, with no call, as Slack would', async () => {
    const r = await startBot({
      env: { MCP_SERVER: 'on', TICKETING_REPORT_LIMIT: '1/60s', REPORTS_WAITING_PER_PERSON: '2' },
      sim: { reportLimit: { limit: 1, windowMs: 60_000 } },
    });
    try {
      const client = await connect(r, await tokenFor(r, 'U0ALICE'));
      const [first, second, third, fourth] = published(r) as [SimEvent, SimEvent, SimEvent, SimEvent];
      // The one slot of the minute goes to a Slack report of Alice's; two of her MCP reports wait.
      await command(r, `report ${first.id}`, 'U0ALICE');
      await expect.poll(() => r.sim.stats().admittedReports).toBe(1);
      const waiting = [second, third].map((event) =>
        client.callTool({ name: 'event_report', arguments: { event: event.id } }, undefined, { timeout: 120_000 }),
      );
      await expect.poll(() => r.bot.reports.waiting()).toBe(2);
      const refused = await client.callTool({ name: 'event_report', arguments: { event: fourth.id } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('You already have 2 reports waiting');
      expect(r.sim.stats().log.some((entry) => entry.path.includes(fourth.id.slice(4)))).toBe(false);
      void Promise.allSettled(waiting);
    } finally {
      await r.close();
    }
  });
});
