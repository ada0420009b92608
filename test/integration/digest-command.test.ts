import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function digest(r: BotRig, text: string) {
  const responseUrl = r.slack.responseUrl();
  const result = await postSigned(
    r.url,
    SIGNING_SECRET,
    commandBody({ text: `digest ${text}`, response_url: responseUrl }),
  );
  expect(result.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  const answer = await r.slack.waitFor(() => r.slack.responses.find((call) => call.method === path));
  return JSON.stringify(answer.args);
}

describe('/events digest through the real Bolt app', () => {
  it('turns a digest on at 09:00 in the user’s Slack timezone, announces it, and reports its status', async () => {
    rig = await startBot();
    const answer = await digest(rig, 'on');
    expect(answer).toContain('Daily digest on: 09:00 America/New_York (your Slack timezone)');
    const announcement = rig.slack.calls.find((c) => c.method === 'chat.postMessage');
    expect(String(announcement?.args.text)).toContain('<@U0EDITOR> set up a daily digest here');
    expect((await rig.bot.digests.status('C0001'))?.subscription).toMatchObject({
      time: '09:00',
      timezone: 'America/New_York',
      days: 1,
      createdBy: 'U0EDITOR',
      status: 'active',
    });
    const status = await digest(rig, 'status');
    expect(status).toContain('Time: 09:00 America/New_York');
    expect(status).toContain('Set up by <@U0EDITOR>');
    expect(status).toContain('Next run:');
  });

  it.each([
    ['on 25:00', 'is not a time of day'],
    ['on 08:00 Mars/Olympus', 'is not a timezone I know'],
    ['on --days 30', '--days takes a whole number from 1 to 14'],
    ['sometimes', 'Unknown digest action'],
  ])('refuses "%s" with a clear message and changes nothing', async (text, problem) => {
    rig = await startBot();
    expect(await digest(rig, text)).toContain(problem);
    expect(await rig.bot.digests.status('C0001')).toBeUndefined();
    expect(rig.slack.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(0);
  });

  it('does not set up a digest in a channel it cannot post in', async () => {
    rig = await startBot();
    rig.slack.failNext('chat.postMessage', 'not_in_channel');
    expect(await digest(rig, 'on 07:30 Europe/Berlin')).toContain('/invite @eventops');
    expect(await rig.bot.digests.status('C0001')).toBeUndefined();
  });

  it('posts today’s digest on "now", counts it as today’s, waits out a Slack 429, and turns off', async () => {
    rig = await startBot();
    expect(await digest(rig, 'on 07:30 UTC --days 14')).toContain('Daily digest on: 07:30 UTC');
    rig.slack.rateLimitNext('chat.postMessage', 1);
    const started = Date.now();
    expect(await digest(rig, 'now')).toContain("Posted today's digest.");
    const posts = rig.slack.calls.filter((c) => c.method === 'chat.postMessage');
    // The announcement, the refused attempt, and the digest after waiting as told.
    expect(posts).toHaveLength(3);
    expect((posts[2]?.at ?? 0) - (posts[1]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(JSON.stringify(posts[2]?.args.blocks)).toContain('Events the next 14 days');
    expect(await digest(rig, 'now')).toContain("Today's digest was already posted here.");
    expect(await digest(rig, 'off')).toContain('Daily digest off');
    expect(await rig.bot.digests.status('C0001')).toBeUndefined();
  });
});
