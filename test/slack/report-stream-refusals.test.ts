import type { RespondFn } from '@slack/bolt';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { plainMessage } from '../../src/render/block-kit.js';
import { md } from '../../src/render/mrkdwn.js';
import { reportStreamEnd, reportStreamStart } from '../../src/render/report-stream-chunks.js';
import type { ReportStatus } from '../../src/reports/report-status.js';
import { ReportStreams } from '../../src/slack/deps/report-streams.js';
import { ReportMessage } from '../../src/slack/reports/report-message.js';
import { ManualClock } from '../helpers/clocks.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';

/*
 * Issue 43 item 3: a refusal turns streaming off only for what it refused. A method Slack does not
 * have is refused everywhere; an argument refused is remembered for that conversation, and for its
 * kind once refused three times in a row there; anything else costs that one report its stream.
 * Each remembered refusal, and each refusal of what a call carried, is a warning that names the
 * method and Slack's error.
 */

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

async function rig() {
  slack = await startFakeSlack();
  slack.allowStreaming();
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
  const streams = new ReportStreams({ clock: new ManualClock(Date.UTC(2026, 11, 1, 9)), logger });
  streams.addressTo('T0001');
  const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const respond = (async () => undefined) as unknown as RespondFn;
  const first: ReportStatus = { state: 'queued', position: 1, estimatedWaitMs: 20_000 };
  const open = (channel: string) =>
    ReportMessage.open(
      { client, respond, userId: 'U0ANNA', stream: { streams, chunks: reportStreamStart(first, 'Jazz Night') } },
      channel,
      plainMessage(md`queued`),
      logger,
    );
  const starts = () =>
    (slack as FakeSlack).calls.filter((call) => call.method === 'chat.startStream').map((call) => call.args.channel);
  const warnings = () => lines.filter((line) => line.includes('"level":"warn"'));
  return { slack, streams, open, starts, warnings };
}

describe('a stream Slack refuses', () => {
  it('is turned off for that conversation at once, and for its kind only after three refusals in a row', async () => {
    const { slack, streams, open, starts, warnings } = await rig();
    slack.failNext('chat.startStream', 'invalid_arguments');
    const dm = await open('D0ANNA');
    expect(dm.where).toEqual({ kind: 'channel', channel: 'D0ANNA', ts: expect.any(String) });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('"method":"chat.startStream"');
    expect(warnings()[0]).toContain('"slackError":"invalid_arguments"');
    expect(warnings()[0]).toContain('in D0ANNA');
    // One refusal is that conversation's: another DM still streams, that one does not.
    expect(streams.refusedIn('D0ANNA')).toBe('invalid_arguments');
    expect(streams.refusedIn('D0BEN')).toBeUndefined();
    await open('D0ANNA');
    await open('D0BEN');
    expect(starts()).toEqual(['D0ANNA', 'D0BEN']);
    // Three DMs refused in a row: DMs no longer stream; channels still do, as replies under their notices.
    slack.failNext('chat.startStream', 'invalid_arguments', 3);
    await open('D0CARL');
    await open('D0DANA');
    await open('D0EVE');
    await open('D0FRED');
    const channel = await open('C0OPS');
    expect(starts()).toEqual(['D0ANNA', 'D0BEN', 'D0CARL', 'D0DANA', 'D0EVE', 'C0OPS']);
    expect(streams.refusedIn('D0FRED')).toBe('invalid_arguments');
    expect(channel.where).toMatchObject({ kind: 'channel', channel: 'C0OPS', stream: expect.any(String) });
    expect(streams.refusedIn('C0OPS')).toBeUndefined();
    expect(warnings().at(-1)).toContain('in DMs (3 refused in a row)');
  });

  it('does not count refusals that a stream started in between: only refusals in a row turn a kind off', async () => {
    const { slack, streams, open } = await rig();
    for (const dm of ['D0A', 'D0B', 'D0C']) {
      slack.failNext('chat.startStream', 'invalid_arguments');
      await open(dm);
      await open(`${dm}2`);
    }
    expect(streams.refusedIn('D0OTHER')).toBeUndefined();
  });

  it('warns of what a call carried that Slack refused, naming the method and the error', async () => {
    const { slack, open, warnings } = await rig();
    const message = await open('C0OPS');
    slack.failNext('chat.stopStream', 'invalid_chunks');
    await message.show(plainMessage(md`the report`), true, reportStreamEnd(true));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('"method":"chat.stopStream"');
    expect(warnings()[0]).toContain('"slackError":"invalid_chunks"');
  });

  it('costs one report its stream when the refusal is about that one conversation', async () => {
    const { slack, open, starts, warnings } = await rig();
    slack.failNext('chat.startStream', 'channel_not_found');
    await open('C0GONE');
    await open('C0OPS');
    expect(starts()).toEqual(['C0GONE', 'C0OPS']);
    expect(warnings()).toEqual([]);
  });

  it('is turned off everywhere when Slack does not have the method', async () => {
    const { slack, streams, open, starts, warnings } = await rig();
    slack.refusedMethods.add('chat.startStream');
    await open('C0OPS');
    await open('D0ANNA');
    await open('G0PRIVATE');
    expect(starts()).toEqual(['C0OPS']);
    expect(streams.refusedIn('G0PRIVATE')).toBe('unknown_method');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('"slackError":"unknown_method"');
  });
});
