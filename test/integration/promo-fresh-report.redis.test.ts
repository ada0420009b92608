import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { blocksText, command, nthResponse, publishedPromo, reportCalls } from '../helpers/bot-actions.js';
import { useRedis } from '../helpers/redis-server.js';

/*
 * Issue 26 item 3: a promo code the report at hand does not name is looked up in a report fetched
 * from the service, not in the same cached report that just missed it (the person would wait for
 * nothing). One process, and replicas on a real redis-server (the shared queue and its cache).
 */

const redis = useRedis();
let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

let namespaces = 0;

describe.each([
  ['one process', () => ({})],
  ['replicas on Redis', () => ({ STORE_URL: redis.url, STORE_NAMESPACE: `promo-fresh-${++namespaces}` })],
])('a promo code the cached report does not name (%s)', (_, env) => {
  it('asks the service for the report again rather than serving the cached one that missed', async () => {
    rig = await startBot({ env: env() });
    const r = rig;
    const promo = publishedPromo(r);
    await command(r, `report ${promo.eventId}`);
    // Delivered (and cached before it was): recorded for the person's App Home.
    await expect.poll(async () => (await r.bot.activity.recent('U0EDITOR')).reports.length).toBe(1);
    expect(reportCalls(r)).toBe(1);
    // The report is cached now (and at hand): it names no NEWCODE.
    const { responseUrl } = await command(r, `promo ${promo.eventId} NEWCODE 12`);
    const answer = blocksText(await nthResponse(r, responseUrl, 2));
    expect(answer).toContain('names no promo code');
    expect(reportCalls(r)).toBe(2);
  });
});
