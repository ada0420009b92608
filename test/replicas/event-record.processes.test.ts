import { describe, expect, it } from 'vitest';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import { startSimulator } from '../../src/simulator/server.js';
import { buttonValue } from '../helpers/bot-actions.js';
import { catalogReady, type Replica, useReplicas } from '../helpers/replicas.js';
import { blockActionBody, commandBody, eventBody, postSigned, postSignedJson } from '../helpers/slack-requests.js';

/*
 * One record of what is known about an event now, shared by replicas in Redis: a promo write made
 * through one replica is the quantity "before" of the next change asked for through another, a
 * moment later, while the report read before the write is still at hand (issue 42, item 1).
 */

const SECRET = 'event-record-secret';
const fleet = useReplicas(SECRET);

describe('the event record across two replicas', () => {
  it('says 35 → 33 in the confirmation, the result and App Home when 35 was set a moment before on the other replica', async () => {
    const sim = await startSimulator({ eventCount: 20, reportLimit: { limit: 100, windowMs: 60_000 } });
    fleet.closers.push(() => sim.close());
    const env = {
      STORE_URL: `${fleet.redis.url}/3`,
      TICKETING_API_URL: sim.url,
      TICKETING_API_KEY: sim.apiKeys[0] as string,
      SLACK_API_URL: fleet.slack.apiUrl,
      // A report stays at hand for a minute: the one read before the write is still there.
      TICKETING_REPORT_LIMIT: '100/1m',
      PROMO_EDITORS: 'U0EDITOR',
    };
    const [a, b] = (await Promise.all(['a', 'b'].map((name) => fleet.start(name, env)))) as [Replica, Replica];
    await Promise.all([a, b].map((replica) => replica.waitForLog(catalogReady, 60_000)));
    const cancelled = new Set(sim.catalog.events.filter((e) => e.status !== 'published').map((e) => e.id));
    const promo = sim.catalog.promos.find((p) => !cancelled.has(p.eventId) && p.quantity !== 35 && p.quantity !== 33);
    if (!promo) throw new Error('no promo');
    const before = promo.quantity;

    /** `/events promo` through one replica, confirmed through the other; the confirmation and the result. */
    const change = async (asked: Replica, confirmed: Replica, quantity: number, name: string) => {
      const proposalUrl = fleet.slack.responseUrl(`propose-${name}`);
      await postSigned(
        `${asked.url}/slack/events`,
        SECRET,
        commandBody({ text: `promo ${promo.eventId} ${promo.code} ${quantity}`, response_url: proposalUrl }),
      );
      const confirmation = await fleet.slack.waitFor(
        () =>
          fleet.slack.responses
            .filter((call) => call.method === new URL(proposalUrl).pathname)
            .map((call) => call.args)
            .find((args) => JSON.stringify(args.blocks ?? []).includes(PROMO_CONFIRM_ACTION)),
        30_000,
      );
      const confirmUrl = fleet.slack.responseUrl(`confirm-${name}`);
      await postSigned(
        `${confirmed.url}/slack/events`,
        SECRET,
        blockActionBody({
          actionId: PROMO_CONFIRM_ACTION,
          value: buttonValue(confirmation, PROMO_CONFIRM_ACTION),
          responseUrl: confirmUrl,
        }),
      );
      const result = await fleet.slack.waitFor(
        () => fleet.slack.responses.find((call) => call.method === new URL(confirmUrl).pathname)?.args,
        30_000,
      );
      return { confirmation: JSON.stringify(confirmation.blocks), result: JSON.stringify(result.blocks) };
    };

    const first = await change(a, b, 35, 'first');
    expect(first.confirmation).toContain(`${before} → 35`);
    expect(first.result).toContain('now allows *35* redemptions');
    expect(promo.quantity).toBe(35);

    // Within the minute, through the other replica: the report read before the write is at hand.
    const second = await change(b, a, 33, 'second');
    expect(second.confirmation).toContain('35 → 33');
    expect(second.confirmation).toContain('it allows *35* now');
    expect(second.result).toMatch(/now allows \*33\* redemptions \(was 35\)/);
    expect(promo.quantity).toBe(33);

    // App Home's promo history, published by the replica that did not write it.
    const since = fleet.slack.calls.length;
    await postSignedJson(
      `${a.url}/slack/events`,
      SECRET,
      eventBody({ type: 'app_home_opened', user: 'U0EDITOR', channel: 'D0001', tab: 'home', event_ts: '1.1' }),
    );
    // The last view published: one that left out a slow read is followed by one that shows it.
    const lastHome = () =>
      JSON.stringify(fleet.slack.calls.slice(since).findLast((call) => call.method === 'views.publish')?.args ?? '');
    await expect.poll(lastHome, { timeout: 30_000 }).toContain('35 → 33');
    expect(lastHome()).not.toContain(`${before} → 33`);
  }, 120_000);
});
