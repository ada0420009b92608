import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { command, nthResponse } from '../helpers/bot-actions.js';
import { useRedis } from '../helpers/redis-server.js';

/*
 * Two deployments (staging and production, say) on one redis-server, each with its own service and
 * its own Slack: nothing one writes may be read, fired or fetched by the other.
 */

const redis = useRedis();
const rigs: BotRig[] = [];
afterAll(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

const deployment = async (namespace: string, seed: number, orgLimit: number) => {
  const rig = await startBot({
    sim: { seed, eventCount: 12, orgLimit: { limit: orgLimit, windowMs: 60_000 } },
    env: { STORE_URL: redis.url, STORE_NAMESPACE: namespace, TICKETING_ORG_LIMIT: `${orgLimit}/60s` },
  });
  rigs.push(rig);
  return rig;
};

const reportMessages = (rig: BotRig) =>
  rig.slack.calls.filter(
    (call) => call.method === 'chat.update' && JSON.stringify(call.args.blocks).includes('Tickets sold'),
  );

describe('two deployments on one Redis', () => {
  it('share nothing: each lists its own events, fires its own digests, fetches its own reports, keeps its own budget', async () => {
    // Different services with different budgets: a shared budget would mix their headers.
    const alpha = await deployment('alpha', 1, 120);
    const beta = await deployment('beta', 2, 180);
    const [alphaEvent] = alpha.sim.catalog.events;
    const betaIds = new Set(beta.sim.catalog.events.map((event) => event.id));
    expect(alpha.sim.catalog.events.some((event) => betaIds.has(event.id))).toBe(false);

    // Each lists only its own service's events.
    for (const [rig, other] of [
      [alpha, beta],
      [beta, alpha],
    ] as const) {
      const { responseUrl } = await command(rig, 'list');
      const listed = JSON.stringify(await nthResponse(rig, responseUrl));
      const shown = (events: { id: string; name: string }[]) =>
        events.filter((event) => listed.includes(event.id.replace(/^evt_/, '')));
      expect(shown(rig.sim.catalog.events).length).toBeGreaterThan(0);
      expect(shown(other.sim.catalog.events)).toEqual([]);
    }

    // A digest set up in alpha's channel C0001 is alpha's alone; beta's C0001 has none to fire.
    const on = await command(alpha, 'digest on 07:30 UTC');
    await nthResponse(alpha, on.responseUrl);
    expect(await alpha.bot.digests.status('C0001')).toBeDefined();
    expect(await beta.bot.digests.status('C0001')).toBeUndefined();
    const now = await command(beta, 'digest now');
    expect(JSON.stringify(await nthResponse(beta, now.responseUrl))).not.toContain("Posted today's digest");
    expect(beta.slack.calls.filter((call) => call.method === 'chat.postMessage')).toHaveLength(0);

    // Alpha's report is fetched from alpha's service and lands in alpha's Slack, never beta's.
    await command(alpha, `report ${alphaEvent?.id}`);
    await alpha.slack.waitFor(() => reportMessages(alpha)[0]);
    expect(reportMessages(beta)).toHaveLength(0);
    expect(beta.sim.stats().admittedReports).toBe(0);
    expect(alpha.sim.stats().admittedReports).toBe(1);

    // The budgets are apart: each follows its own service's headers.
    const [alphaBudget, betaBudget] = await Promise.all([alpha.bot.ticketing.budget(), beta.bot.ticketing.budget()]);
    expect(alphaBudget.limit).toBe(120);
    expect(betaBudget.limit).toBe(180);

    // And every key either wrote starts with its namespace (a hash tag may wrap the budget's).
    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('*');
      expect(keys.length).toBeGreaterThan(0);
      const strays = keys.filter((key) => !/^\{?(alpha|beta)\}?:/.test(key));
      expect(strays).toEqual([]);
      expect(keys.some((key) => key.startsWith('alpha:')) && keys.some((key) => key.startsWith('beta:'))).toBe(true);
    } finally {
      client.disconnect();
    }
  });
});
