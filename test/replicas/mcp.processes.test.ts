import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { McpTokens } from '../../src/mcp/mcp-tokens.js';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { openStore } from '../../src/store/open-store.js';
import { systemClock } from '../../src/time/clock.js';
import { buttonValue, type Json } from '../helpers/bot-actions.js';
import { catalogReady, type Replica, useReplicas } from '../helpers/replicas.js';
import { blockActionBody, commandBody, postSigned } from '../helpers/slack-requests.js';

/*
 * Issue 46 across replicas: two bot processes (`src/main.ts`) on one real redis-server, the
 * official MCP SDK client over HTTP against each. A token made on one works on the other and is
 * revoked on both at once; the report limit and the people's waiting limits are one for both.
 */

const SECRET = 'mcp-replica-signing-secret';
const fleet = useReplicas(SECRET);
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
});

async function tokenFrom(replica: Replica, user: string): Promise<string> {
  const url = fleet.slack.responseUrl(`token-${user}-${replica.name}`);
  const answer = await postSigned(
    `${replica.url}/slack/events`,
    SECRET,
    commandBody({ text: 'mcp token', user_id: user, response_url: url }),
  );
  expect(answer.status).toBe(200);
  const said = await fleet.slack.waitFor(() =>
    fleet.slack.responses.find((call) => call.method === new URL(url).pathname),
  );
  const token = /eo_mcp_[A-Za-z0-9_-]+/.exec(JSON.stringify(said.args))?.[0];
  if (!token) throw new Error(`no token: ${JSON.stringify(said.args)}`);
  return token;
}

async function connect(replica: Replica, token: string): Promise<Client> {
  const client = new Client({ name: 'eventops-replica-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${replica.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');

const listTools = (replica: Replica, token: string) =>
  fetch(`${replica.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe('the MCP server on two replicas on one Redis', () => {
  it('shares tokens, the report limit, promo confirmations and the figures rule between replicas', async () => {
    const sim: Simulator = await startSimulator({ reportLimit: { limit: 3, windowMs: 1_000 }, eventCount: 20 });
    fleet.closers.push(() => sim.close());
    const env = {
      STORE_URL: `${fleet.redis.url}/4`,
      TICKETING_API_URL: sim.url,
      TICKETING_API_KEY: sim.apiKeys[0] as string,
      SLACK_API_URL: fleet.slack.apiUrl,
      TICKETING_REPORT_LIMIT: '3/1s',
      PROMO_EDITORS: 'U0EDITOR',
      MCP_SERVER: 'on',
    };
    const [a, b] = (await Promise.all([fleet.start('mcp-a', env), fleet.start('mcp-b', env)])) as [Replica, Replica];
    await Promise.all([a.waitForLog(catalogReady), b.waitForLog(catalogReady)]);

    // A token made on A works on B; revoked on A, it is refused on B at once (401, nothing else).
    const revoked = await tokenFrom(a, 'U0REVOKER');
    expect((await listTools(b, revoked)).status).toBe(200);
    const revokeUrl = fleet.slack.responseUrl('revoke');
    await postSigned(
      `${a.url}/slack/events`,
      SECRET,
      commandBody({ text: 'mcp revoke', user_id: 'U0REVOKER', response_url: revokeUrl }),
    );
    await fleet.slack.waitFor(() => fleet.slack.responses.find((call) => call.method === new URL(revokeUrl).pathname));
    const refused = await listTools(b, revoked);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe('');

    // Five reports at once through both replicas, while two people ask in Slack: 0 x 429.
    const token = await tokenFrom(b, 'U0EDITOR');
    const [onA, onB] = [await connect(a, token), await connect(b, token)];
    expect((await onA.listTools()).tools.map((tool) => tool.name)).toContain('event_report');
    const events = sim.catalog.events.filter((event) => event.status === 'published').slice(0, 7) as SimEvent[];
    const found = await onB.callTool({ name: 'find_event', arguments: { name: (events[0] as SimEvent).name } });
    expect((found.structuredContent as Json).event).toMatchObject({ id: (events[0] as SimEvent).id });
    sim.resetStats();
    const inSlack = [a, b].map((replica, i) =>
      postSigned(
        `${replica.url}/slack/events`,
        SECRET,
        commandBody({
          text: `report ${(events[5 + i] as SimEvent).id}`,
          user_id: `U0PERSON${i}`,
          response_url: fleet.slack.responseUrl(`report-${i}`),
        }),
      ),
    );
    const results = await Promise.all(
      events.slice(0, 5).map((event, i) =>
        (i % 2 === 0 ? onA : onB).callTool({ name: 'event_report', arguments: { event: event.id } }, undefined, {
          timeout: 60_000,
        }),
      ),
    );
    await Promise.all(inSlack);
    for (const result of results) {
      expect(result.isError, textOf(result)).toBeFalsy();
      expect((result.structuredContent as Json).report).toBeTypeOf('object');
    }
    await expect.poll(() => sim.stats().admittedReports, { timeout: 30_000 }).toBeGreaterThanOrEqual(7);
    expect(sim.stats().log.filter((entry) => entry.status === 429)).toEqual([]);

    // A promo change asked on A is written only after the click, which replica B handles, once.
    const promo = sim.catalog.promos.find(
      (each) => sim.catalog.events.find((event) => event.id === each.eventId)?.status === 'published',
    );
    if (!promo) throw new Error('no promo');
    const before = promo.quantity;
    const writes = () => sim.stats().log.filter((entry) => entry.path.endsWith('/update'));
    const asked = await onA.callTool({
      name: 'request_promo_change',
      arguments: { event: promo.eventId, code: promo.code, quantity: before + 3 },
    });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    expect(writes()).toEqual([]);
    const dm = await fleet.slack.waitFor(() =>
      fleet.slack.calls.find(
        (call) =>
          call.method === 'chat.postMessage' &&
          call.args.channel === 'U0EDITOR' &&
          JSON.stringify(call.args.blocks ?? []).includes(PROMO_CONFIRM_ACTION),
      ),
    );
    const value = buttonValue(dm.args as Json, PROMO_CONFIRM_ACTION);
    for (const name of ['first', 'again']) {
      const clicked = await postSigned(
        `${b.url}/slack/events`,
        SECRET,
        blockActionBody({
          actionId: PROMO_CONFIRM_ACTION,
          value,
          userId: 'U0EDITOR',
          responseUrl: fleet.slack.responseUrl(`confirm-${name}`),
        }),
      );
      expect(clicked.status).toBe(200);
      await fleet.slack.waitFor(() =>
        fleet.slack.responses.find(
          (call) => call.method === new URL(fleet.slack.responseUrl(`confirm-${name}`)).pathname,
        ),
      );
    }
    expect(promo.quantity).toBe(before + 3);
    expect(writes()).toHaveLength(1);

    // A guest gets no token; a token whose person is a guest now gets no figures, on either replica.
    fleet.slack.people.set('U0GUEST', { is_restricted: true });
    const guestUrl = fleet.slack.responseUrl('guest-token');
    await postSigned(
      `${a.url}/slack/events`,
      SECRET,
      commandBody({ text: 'mcp token', user_id: 'U0GUEST', response_url: guestUrl }),
    );
    const guestAnswer = await fleet.slack.waitFor(() =>
      fleet.slack.responses.find((call) => call.method === new URL(guestUrl).pathname),
    );
    expect(JSON.stringify(guestAnswer.args)).not.toMatch(/eo_mcp_/);
    const store = await openStore(`${fleet.redis.url}/4`);
    const issued = await new McpTokens({ store: store.keyValue, clock: systemClock, ttlMs: 60_000 }).issue('U0GUEST');
    await store.close();
    const guest = await connect(b, issued.token);
    const calls = sim.stats().admittedReports;
    const report = await guest.callTool({ name: 'event_report', arguments: { event: (events[0] as SimEvent).id } });
    expect(textOf(report)).toContain('guest');
    expect(report.structuredContent as Json).not.toHaveProperty('report');
    expect(sim.stats().admittedReports).toBe(calls);
  }, 120_000);
});
