import { describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { responsesTo } from '../helpers/bot-actions.js';
import { useRedis } from '../helpers/redis-server.js';
import { command, figuresIn, heard, SHARED_INFO, sentTo, slackEvent, upcoming } from './figures-gate-rig.js';

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

describe('a person made a guest, with replicas (two bots on one redis-server)', () => {
  it("reads as a guest at once on the replica Slack did not tell, among a channel's members too", async () => {
    const env = { STORE_URL: `${redis.url}/5` };
    const a = await startBot({ env });
    redis.closers.push(() => a.close());
    const b: BotRig = await startBot({ env });
    redis.closers.push(() => b.close());
    for (const rig of [a, b]) rig.slack.members.set('C0TEAM', ['UBOT', 'U0EDITOR', 'U0SOON']);
    const event = upcoming(b, 0);

    // Replica b reads the channel's members (U0SOON a member, kept) and posts the report there.
    await command(b, `report ${event.id}`, 'C0TEAM');
    // (Either replica may fetch it and edit the message.)
    await b.slack.waitFor(() => [a, b].flatMap((rig) => sentTo(rig, 'C0TEAM')).find((call) => figuresIn(call.args)));

    // U0SOON is made a guest; Slack tells replica a alone.
    for (const rig of [a, b]) rig.slack.people.set('U0SOON', { is_restricted: true });
    await heard(a, { type: 'user_change', user: { id: 'U0SOON', is_restricted: true }, event_ts: '6.1' });

    // Replica b, asked at once (well within what it kept), reads U0SOON as a guest.
    const from = [a, b].map((rig) => rig.slack.calls.length);
    const since = () => [a, b].flatMap((rig, i) => rig.slack.calls.slice(from[i]));
    await command(b, `report ${event.id}`, 'C0TEAM');
    const told = await b.slack.waitFor(() =>
      since().find((call) => call.method === 'chat.postEphemeral' && call.args.channel === 'C0TEAM'),
    );
    expect(JSON.stringify(told.args)).toContain('Guests of this workspace are members of this conversation');
    const later = since();
    for (const call of [a, b].flatMap((rig) => sentTo(rig, 'C0TEAM')).filter((each) => later.includes(each)))
      expect(figuresIn(call.args), call.method).toBe(false);
  });
});
