import type { RespondFn } from '@slack/bolt';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { plainMessage } from '../../src/render/block-kit.js';
import { md } from '../../src/render/mrkdwn.js';
import { reportStreamEnd, reportStreamProgress, reportStreamStart } from '../../src/render/report-stream-chunks.js';
import type { ReportStatus } from '../../src/reports/report-status.js';
import { ReportStreams, STREAM_TIERS } from '../../src/slack/deps/report-streams.js';
import { ReportMessage } from '../../src/slack/reports/report-message.js';
import { ManualClock } from '../helpers/clocks.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';

/*
 * Slack closes a stream about 5 minutes after it starts (node-slack-sdk #2702); a stream left
 * unstopped stays a message "still streaming" unless it is edited (node-slack-sdk #2611). The fake
 * Slack answers message_not_in_streaming_state for a stream older than 5 minutes on the test's
 * moved clock. A report's reply ends as words or a stopped stream in every case here.
 */

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

async function rig(tiers = STREAM_TIERS) {
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 9));
  slack = await startFakeSlack({ clock });
  slack.allowStreaming();
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', write: (line) => lines.push(line) });
  const streams = new ReportStreams({ clock, logger, tiers });
  streams.addressTo('T0001');
  const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const respond = (async () => undefined) as unknown as RespondFn;
  const open = (channel: string, first: Queued = { state: 'queued', position: 1, estimatedWaitMs: 60_000 }) =>
    ReportMessage.open(
      {
        client,
        respond,
        userId: 'U0ANNA',
        stream: {
          streams,
          chunks: reportStreamStart(first, 'Jazz Night'),
          expectedMs: first.estimatedWaitMs,
        },
      },
      channel,
      plainMessage(md`queued`),
      logger,
    );
  const s = slack;
  const streamCalls = () => s.calls.filter((call) => /^chat\.(start|append|stop)Stream$/.test(call.method));
  const refused = () => s.calls.filter((call) => call.error !== undefined);
  const replyEdits = (ts: string) => s.calls.filter((call) => call.method === 'chat.update' && call.args.ts === ts);
  return { slack: s, clock, streams, open, streamCalls, refused, replyEdits, lines };
}

type Queued = Extract<ReportStatus, { state: 'queued' }>;
const place = (position: number): Queued => ({ state: 'queued', position, estimatedWaitMs: position * 30_000 });

describe('a report stream and Slack closing streams after 5 minutes', () => {
  it('edits the reply to plain words when the report comes after Slack closed the stream', async () => {
    const { slack, clock, open, replyEdits } = await rig();
    const message = await open('C0OPS');
    const reply = (message.where as { stream?: string }).stream as string;
    expect(reply).toBeDefined();
    // No progress for six minutes (one long fetch), then the report.
    await clock.advance(6 * 60_000);
    await message.show(plainMessage(md`the report`), true, reportStreamEnd(true));
    // Slack has closed it: the reply is edited to words, not left a stream that never ends.
    const edits = replyEdits(reply);
    expect(edits).toHaveLength(1);
    expect(String(edits[0]?.args.text)).toContain('the message above has the report');
    expect(slack.calls.filter((call) => call.error === 'message_not_in_streaming_state')).toEqual([]);
  });

  it('stops a stream kept 4 minutes at its next progress, and edits the notice for the rest of the wait', async () => {
    const { slack, clock, open, streamCalls, refused } = await rig();
    const message = await open('C0OPS');
    const reply = (message.where as { stream?: string }).stream as string;
    const notice = (message.where as { ts: string }).ts;
    // A place every 30 s for 7 minutes: more than Slack lets a stream live.
    for (let position = 14; position > 0; position -= 1) {
      await clock.advance(30_000);
      await message.show(plainMessage(md`place ${position}`), false, reportStreamProgress(place(position)));
    }
    await message.show(plainMessage(md`the report`), true, reportStreamEnd(true));
    expect(refused()).toEqual([]);
    const stop = streamCalls().find((call) => call.method === 'chat.stopStream');
    expect(stop?.args.ts).toBe(reply);
    expect(slack.streams.get(reply)?.stopped).toBe(true);
    // After the stop, the places and the report are edits of the notice.
    const noticeEdits = slack.calls.filter((call) => call.method === 'chat.update' && call.args.ts === notice);
    expect(noticeEdits.length).toBeGreaterThan(1);
    expect(String(noticeEdits.at(-1)?.args.text)).toContain('the report');
    expect(streamCalls().at(-1)?.method).toBe('chat.stopStream');
  });

  it('does not stream a wait expected to outlast a stream', async () => {
    const { open, streamCalls } = await rig();
    const message = await open('C0OPS', { state: 'queued', position: 9, estimatedWaitMs: 9 * 60_000 });
    expect(message.where).toEqual({ kind: 'channel', channel: 'C0OPS', ts: expect.any(String) });
    expect(streamCalls()).toEqual([]);
  });

  it('waits for room in stopStream’s tier rather than leave a stream unstopped', async () => {
    const { slack, clock, open, streamCalls } = await rig({ ...STREAM_TIERS, 'chat.stopStream': 1 });
    const first = await open('C0ONE');
    const second = await open('C0TWO');
    await first.show(plainMessage(md`the report`), true, reportStreamEnd(true));
    const done = second.show(plainMessage(md`the report`), true, reportStreamEnd(true));
    // The second stop waits for the minute to turn (on the test's clock), then goes.
    await slack.waitFor(() => clock.nextAt());
    expect(streamCalls().filter((call) => call.method === 'chat.stopStream')).toHaveLength(1);
    await clock.advance(60_000);
    await done;
    expect(streamCalls().filter((call) => call.method === 'chat.stopStream')).toHaveLength(2);
    expect([...slack.streams.values()].every((stream) => stream.stopped)).toBe(true);
  });

  it('stops the stream even when editing the notice fails', async () => {
    const { slack, open } = await rig();
    const message = await open('C0OPS');
    const reply = (message.where as { stream?: string }).stream as string;
    slack.failNext('chat.update', 'message_not_found');
    await message.show(plainMessage(md`the report`), true, reportStreamEnd(true));
    expect(slack.streams.get(reply)?.stopped).toBe(true);
  });
});
