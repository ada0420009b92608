import { describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { responsesTo } from '../helpers/bot-actions.js';
import { useRedis } from '../helpers/redis-server.js';
import { command, SHARED_INFO, slackEvent, upcoming } from './figures-gate-rig.js';

const redis = useRedis();

/** What a watch asked for in a channel shared with another organization answers (privately). */
const SHARED_REFUSAL = /would show its ticket sales and revenue/;

describe('a sharing change with replicas (two bots on one redis-server)', () => {
  it('is heard by the replica Slack did not send it to: its kept answer is not trusted any more', async () => {
    const env = { STORE_URL: `${redis.url}/4` };
    const a = await startBot({ env });
    redis.closers.push(() => a.close());
    const b: BotRig = await startBot({ env });
    redis.closers.push(() => b.close());
    const [first, second] = [upcoming(b, 0), upcoming(b, 1)];

    // Replica b learns that the channel is the organization's own (and keeps it).
    const set = await command(b, `watch ${first.id}: sold out`, 'C0BOTH');
    const setAnswer = await b.slack.waitFor(() => responsesTo(b, set)[0]);
    expect(JSON.stringify(setAnswer.args)).not.toMatch(SHARED_REFUSAL);

    // The channel is shared with a partner; Slack tells replica a alone.
    for (const rig of [a, b]) rig.slack.conversations.set('C0BOTH', SHARED_INFO);
    await slackEvent(a, { type: 'channel_shared', channel: 'C0BOTH', connected_team_id: 'T0PARTNER', event_ts: '4.1' });
    await a.slack.waitFor(() =>
      a.logs.find((line) => line.includes('Who reads a conversation changed: its figures are asked about again')),
    );

    // Replica b, asked at once (well within what it kept), asks Slack again: shared.
    const asked = await command(b, `watch ${second.id}: sold out`, 'C0BOTH');
    const answer = await b.slack.waitFor(() => responsesTo(b, asked)[0]);
    expect(JSON.stringify(answer.args)).toMatch(SHARED_REFUSAL);
  });
});
