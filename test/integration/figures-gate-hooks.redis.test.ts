import { describe, expect, it } from 'vitest';
import { SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { useRedis } from '../helpers/redis-server.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';
import { figuresIn, SHARED_INFO, upcoming } from './figures-gate-rig.js';

const redis = useRedis();

/**
 * A report job kept in the shared store names where to answer (issue 33, Deliver 8): its
 * response_url is used only when it is Slack's. On the real Bolt app with replicas' store (Redis):
 * a request whose response_url is elsewhere gets its report by DM, and that address no figures.
 */
describe('a stored report job whose response_url is not Slack’s', () => {
  it('delivers the report by DM, and sends no figures to that address', async () => {
    const rig = await startBot({ env: { STORE_URL: `${redis.url}/5` } });
    redis.closers.push(() => rig.close());
    // Another origin than the Slack the bot talks to: not a hooks URL.
    const elsewhere = await startFakeSlack();
    redis.closers.push(() => elsewhere.close());
    rig.slack.conversations.set('C0PARTNER', SHARED_INFO);
    const event = upcoming(rig);
    const asked = await postSigned(
      rig.url,
      SIGNING_SECRET,
      commandBody({ text: `report ${event.id}`, channel_id: 'C0PARTNER', response_url: elsewhere.responseUrl() }),
    );
    expect(asked.status).toBe(200);

    // Kept private (the channel is shared): the report comes to the person by DM.
    const dm = await rig.slack.waitFor(() =>
      rig.slack.calls.find(
        (call) => call.method === 'chat.postMessage' && call.args.channel === 'U0EDITOR' && figuresIn(call.args),
      ),
    );
    expect(figuresIn(dm.args)).toBe(true);
    expect(rig.logs.some((line) => line.includes("A stored response URL is not Slack's"))).toBe(true);
    expect(elsewhere.responses.filter((call) => figuresIn(call.args))).toEqual([]);
  });
});
