import type { RespondFn } from '@slack/bolt';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { plainMessage } from '../../src/render/block-kit.js';
import { md } from '../../src/render/mrkdwn.js';
import { reportStreamStart } from '../../src/render/report-stream-chunks.js';
import type { ReportStatus } from '../../src/reports/report-status.js';
import { ReportStreams } from '../../src/slack/deps/report-streams.js';
import { ReportMessage } from '../../src/slack/reports/report-message.js';
import { ManualClock } from '../helpers/clocks.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';

/*
 * Issue 43 item 3: a refusal turns streaming off only for what it refused. A method Slack does not
 * have is refused everywhere; an argument refused in one kind of conversation is remembered for that
 * kind; anything else costs that one report its stream. Each remembered refusal is a warning that
 * names the method and Slack's error.
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
  it('is turned off for that kind of conversation only, with a warning naming the method and the error', async () => {
    const { slack, streams, open, starts, warnings } = await rig();
    slack.failNext('chat.startStream', 'invalid_arguments');
    const dm = await open('D0ANNA');
    expect(dm.where).toEqual({ kind: 'channel', channel: 'D0ANNA', ts: expect.any(String) });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('"method":"chat.startStream"');
    expect(warnings()[0]).toContain('"slackError":"invalid_arguments"');
    expect(warnings()[0]).toContain('in DMs');
    expect(streams.refusedIn('D0BEN')).toBe('invalid_arguments');
    // Another DM tries no stream; a channel still streams, as a reply under its notice.
    await open('D0BEN');
    const channel = await open('C0OPS');
    expect(starts()).toEqual(['D0ANNA', 'C0OPS']);
    expect(channel.where).toMatchObject({ kind: 'channel', channel: 'C0OPS', stream: expect.any(String) });
    expect(streams.refusedIn('C0OPS')).toBeUndefined();
    expect(warnings()).toHaveLength(1);
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
