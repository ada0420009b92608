import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { conversationAudience } from '../../src/slack/deps/conversation-audience.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';

const TOKEN = fakeSlackToken('b', 'conversation-audience');
let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
});

describe('who can read a conversation', () => {
  it('answers "not known" when asked before the app’s client is bound, and does not keep that answer', async () => {
    slack = await startFakeSlack();
    const logs: string[] = [];
    const audience = conversationAudience({
      logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
      clock: { now: () => Date.now() },
    });
    expect(await audience.of('C0OPS')).toEqual({ kind: 'unknown', reason: 'no Slack client yet' });
    expect(await audience.of('C0OPS')).toEqual({ kind: 'unknown', reason: 'no Slack client yet' });
    expect(logs.filter((line) => line.includes('before the Slack app was bound'))).toHaveLength(1);
    audience.bind(new webApi.WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }));
    expect(await audience.of('C0OPS')).toEqual({ kind: 'internal', botIsMember: true });
    slack.conversations.set('C0PARTNER', { id: 'C0PARTNER', is_channel: true, is_member: true, is_ext_shared: true });
    expect(await audience.of('C0PARTNER')).toEqual({ kind: 'external', unread: 'not-asked' });
    expect(slack.calls.filter((call) => call.method === 'conversations.info')).toHaveLength(2);
  });

  it('looks each member of a channel up once; a member asking after is not looked up again', async () => {
    slack = await startFakeSlack();
    slack.members.set('C0ROOM', ['UBOT', 'U0ANNA', 'U0BEN']);
    const audience = conversationAudience({
      logger: createLogger({ level: 'error', write: () => {} }),
      clock: { now: () => Date.now() },
    });
    audience.bind(new webApi.WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }));
    expect(await audience.of('C0ROOM')).toEqual({ kind: 'internal', botIsMember: true });
    expect(await audience.person('U0ANNA')).toEqual({ kind: 'member' });
    const lookedUp = slack.calls.filter((call) => call.method === 'users.info').map((call) => call.args.user);
    expect(lookedUp.sort()).toEqual(['U0ANNA', 'U0BEN']);
    // A guest among them: the room is the organization's, with a guest.
    slack.people.set('U0GUEST', { is_restricted: true });
    slack.members.set('C0MIXED', ['UBOT', 'U0ANNA', 'U0GUEST']);
    expect(await audience.of('C0MIXED')).toEqual({ kind: 'internal', botIsMember: true, guests: true });
  });

  it("reads a shared channel's members too: a guest of our own among them, or members not read, is said", async () => {
    slack = await startFakeSlack();
    const audience = conversationAudience({
      logger: createLogger({ level: 'error', write: () => {} }),
      clock: { now: () => Date.now() },
    });
    audience.bind(new webApi.WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }));
    const shared = { is_channel: true, is_member: true, is_shared: true, is_ext_shared: true };
    slack.userTeams.set('U0PARTNER', 'T0PARTNER');
    slack.people.set('U0PARTNER', { is_stranger: true, is_restricted: true });
    slack.people.set('U0GUEST', { is_restricted: true });
    slack.conversations.set('C0CONNECT', shared);
    slack.members.set('C0CONNECT', ['UBOT', 'U0ANNA', 'U0PARTNER']);
    // A guest of the other organization is theirs to judge: only the shared channel is said.
    const choice = { members: true };
    expect(await audience.of('C0CONNECT', undefined, choice)).toEqual({ kind: 'external' });
    slack.conversations.set('C0CONNECTED', shared);
    slack.members.set('C0CONNECTED', ['UBOT', 'U0ANNA', 'U0PARTNER', 'U0GUEST']);
    expect(await audience.of('C0CONNECTED', undefined, choice)).toEqual({ kind: 'external', guests: 'some' });
    // Without a choice asked about, a shared channel's members are not read.
    expect(await audience.of('C0CONNECTED')).toEqual({ kind: 'external', unread: 'not-asked' });
    slack.conversations.set('C0OUTSIDE', { ...shared, is_member: false });
    expect(await audience.of('C0OUTSIDE', undefined, choice)).toEqual({ kind: 'external', unread: 'app-not-in' });
  });

  it("keeps a failed read of a shared channel's members for the failure time only, not the answer time", async () => {
    slack = await startFakeSlack();
    let now = 1_000_000;
    const audience = conversationAudience({
      logger: createLogger({ level: 'error', write: () => {} }),
      clock: { now: () => now },
      ttlMs: 300_000,
      failureTtlMs: 30_000,
    });
    audience.bind(new webApi.WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }));
    slack.conversations.set('C0CONNECT', { is_channel: true, is_member: true, is_shared: true, is_ext_shared: true });
    slack.members.set('C0CONNECT', ['UBOT', 'U0ANNA']);
    slack.failNext('users.info', 'internal_error');
    const choice = { members: true };
    const failed = await audience.of('C0CONNECT', undefined, choice);
    expect(failed).not.toEqual({ kind: 'external' });
    // Within the answer time (5 minutes), past the failure time: Slack is asked again.
    now += 31_000;
    expect(await audience.of('C0CONNECT', undefined, choice)).toEqual({ kind: 'external' });
  });
});
