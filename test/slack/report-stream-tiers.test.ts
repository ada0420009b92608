import type { RespondFn } from '@slack/bolt';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { md } from '../../src/render/mrkdwn.js';
import { reportAnswerMessage } from '../../src/render/report-answer.js';
import { reportStreamEnd, reportStreamProgress, reportStreamStart } from '../../src/render/report-stream-chunks.js';
import type { ReportStatus } from '../../src/reports/report-status.js';
import { ReportStreams, STREAM_LIFETIME_MS, STREAM_TIERS } from '../../src/slack/deps/report-streams.js';
import { ReportMessage } from '../../src/slack/reports/report-message.js';
import { ManualClock } from '../helpers/clocks.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { shown } from '../helpers/shown.js';

/*
 * Issue 37 item 2: no more Slack calls per report than today's notice and its edits, and Slack's
 * tiers kept with 30 reports waiting at once. 30 people ask within a second; the report limit
 * fetches one every 20 s (3 a minute); each report still waiting is told its new place. The clock
 * is moved, never waited for; each call is stamped with the moved clock's time.
 */

const LIMIT = { limit: 3, windowMs: 60_000 };
const WAITING = 30;
const TIERS: Record<string, number> = { ...STREAM_TIERS };

let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
  slack = undefined;
});

const notice = (status: ReportStatus) =>
  reportAnswerMessage({
    status:
      status.state === 'report'
        ? { state: 'report', report: shown(status.report) }
        : (status as Exclude<ReportStatus, { state: 'report' }>),
    label: 'Jazz Night',
    reportLimit: LIMIT,
    about: { eventId: 'evt_1', describeError: () => md`it failed` },
  });

/** Runs the 30 reports through the queue; each Slack call with the moved clock's time. */
async function thirtyWaiting(streaming: boolean) {
  const clock = new ManualClock(Date.UTC(2026, 11, 1, 9));
  // Slack's streams close 5 minutes on, on this clock: a stream kept longer is refused.
  slack = await startFakeSlack({ clock });
  if (streaming) slack.allowStreaming();
  const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  const streams = streaming ? new ReportStreams({ clock, logger: silentLogger }) : undefined;
  // As the app does at start, from the auth.test it asks anyway.
  streams?.addressTo('T0001');
  const stamped: { method: string; at: number; channel: unknown }[] = [];
  const stamp = () => {
    for (const call of (slack as FakeSlack).calls.slice(stamped.length))
      stamped.push({ method: call.method, at: clock.now(), channel: call.args.channel });
  };
  const respond = (async () => undefined) as unknown as RespondFn;
  const messages: ReportMessage[] = [];
  for (let i = 0; i < WAITING; i += 1) {
    const first: ReportStatus = { state: 'queued', position: i + 1, estimatedWaitMs: (i + 1) * 20_000 };
    // As report-view opens it: a wait expected to outlast a stream's 4 minutes is not streamed.
    const stream = streams && {
      streams,
      chunks: reportStreamStart(first, 'Jazz Night'),
      expectedMs: first.estimatedWaitMs,
    };
    messages.push(
      await ReportMessage.open({ client, respond, userId: `U${i}`, stream }, `C${i}`, notice(first), silentLogger),
    );
    stamp();
  }
  for (let head = 0; head < WAITING; head += 1) {
    await clock.advance(20_000);
    const fetching: ReportStatus = { state: 'fetching', position: 0, estimatedWaitMs: 0 };
    await messages[head]?.show(notice(fetching), false, reportStreamProgress(fetching));
    const report: ReportStatus = { state: 'report', report: { ticketsSold: 10 + head } };
    await messages[head]?.show(notice(report), true, reportStreamEnd(true));
    for (let later = head + 1; later < WAITING; later += 1) {
      const place: ReportStatus = { state: 'queued', position: later - head, estimatedWaitMs: (later - head) * 20_000 };
      await messages[later]?.show(notice(place), false, reportStreamProgress(place));
    }
    stamp();
  }
  return stamped;
}

/** The most calls of each method in any minute. */
function busiestMinute(calls: { method: string; at: number }[]): Record<string, number> {
  const most: Record<string, number> = {};
  for (const call of calls) {
    const inMinute = calls.filter(
      (other) => other.method === call.method && other.at >= call.at && other.at - call.at < 60_000,
    );
    most[call.method] = Math.max(most[call.method] ?? 0, inMinute.length);
  }
  return most;
}

const byMethod = (calls: { method: string }[]) =>
  calls.reduce<Record<string, number>>((counts, call) => {
    counts[call.method] = (counts[call.method] ?? 0) + 1;
    return counts;
  }, {});

describe('30 reports waiting', () => {
  it('stream their waits as replies under their notices, with fewer edits, and no method passes its tier in any minute', async () => {
    const today = await thirtyWaiting(false);
    await slack?.close();
    const streamed = await thirtyWaiting(true);
    const todayCounts = byMethod(today);
    const streamedCounts = byMethod(streamed);
    // Figures for docs/benchmarks.md (printed by the test run).
    console.log('calls for 30 reports waiting', { today: todayCounts, streamed: streamedCounts });
    console.log('busiest minute', { today: busiestMinute(today), streamed: busiestMinute(streamed) });
    // Today: one post and an edit per place, per fetch and for the report, for each report.
    expect(todayCounts['chat.postMessage']).toBe(WAITING);
    expect(streamedCounts['auth.test']).toBeUndefined();
    // Streamed, a report makes at most two calls more than its notice did (the reply's start and
    // stop), and fewer edits: the places go to the reply, the notice is edited once.
    const streams = streamedCounts['chat.startStream'] ?? 0;
    expect(streamed.length).toBeLessThanOrEqual(today.length + 2 * streams);
    for (let i = 0; i < WAITING; i += 1) {
      const channel = `C${i}`;
      expect(streamed.filter((call) => call.channel === channel).length).toBeLessThanOrEqual(
        today.filter((call) => call.channel === channel).length + 2,
      );
    }
    expect(streamedCounts['chat.update'] ?? 0).toBeLessThan(todayCounts['chat.update'] ?? 0);
    // Every report ends: each stream started is stopped, each notice posted and edited last.
    expect(streamedCounts['chat.stopStream']).toBe(streams);
    expect(streamedCounts['chat.postMessage']).toBe(WAITING);
    // Every stream is a reply under its report's notice.
    const notices = new Set((slack as FakeSlack).postedTs);
    for (const stream of (slack as FakeSlack).streams.values()) expect(notices).toContain(stream.threadTs);
    // Only a wait expected within a stream's 4 minutes streams (20 s a place: the first 12); the
    // rest are today's notices. Slack refused no stream call: none was kept past its 5 minutes.
    expect(streamedCounts['chat.startStream']).toBe(Math.floor(STREAM_LIFETIME_MS / 20_000));
    expect((slack as FakeSlack).calls.filter((call) => call.error !== undefined)).toEqual([]);
    // The stream methods keep their tiers. A stream lives 4 minutes at most (Slack closes it at 5):
    // a longer wait goes back to edits of its notice, which, like today's, are not held to
    // chat.update's tier; streamed, that minute is still quieter than today's busiest.
    const busiest = busiestMinute(streamed);
    for (const [method, most] of Object.entries(busiest)) {
      if (method.endsWith('Stream')) expect(most, method).toBeLessThanOrEqual(TIERS[method] ?? 0);
    }
    expect(busiest['chat.update'] ?? 0).toBeLessThan(busiestMinute(today)['chat.update'] ?? 0);
  });

  it('coalesce a burst of places beyond appendStream’s tier: the newest goes when there is room', async () => {
    slack = await startFakeSlack();
    slack.allowStreaming();
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const clock = new ManualClock(Date.UTC(2026, 11, 1, 9));
    const streams = new ReportStreams({ clock, logger: silentLogger });
    const respond = (async () => undefined) as unknown as RespondFn;
    const messages: ReportMessage[] = [];
    for (let i = 0; i < 20; i += 1) {
      const first: ReportStatus = { state: 'queued', position: i + 1, estimatedWaitMs: 60_000 };
      const stream = { streams, chunks: reportStreamStart(first, 'Jazz Night') };
      messages.push(
        await ReportMessage.open({ client, respond, userId: `U${i}`, stream }, `C${i}`, notice(first), silentLogger),
      );
    }
    // Ten changes of place for each of 20 streams within a minute: 200 wanted, 100 allowed.
    for (let round = 0; round < 10; round += 1) {
      await Promise.all(
        messages.map((message, i) => {
          const place: ReportStatus = { state: 'queued', position: i + 1, estimatedWaitMs: 60_000 - round * 1_000 };
          return message.show(notice(place), false, reportStreamProgress(place));
        }),
      );
      await clock.advance(1_000);
    }
    const appended = slack.calls.filter((call) => call.method === 'chat.appendStream').length;
    expect(appended).toBe(STREAM_TIERS['chat.appendStream']);
    // A minute on, there is room again: each stream's next place is appended.
    await clock.advance(60_000);
    await Promise.all(
      messages.map((message) => {
        const place: ReportStatus = { state: 'queued', position: 1, estimatedWaitMs: 1_000 };
        return message.show(notice(place), false, reportStreamProgress(place));
      }),
    );
    expect(slack.calls.filter((call) => call.method === 'chat.appendStream').length).toBe(appended + 20);
  });
});
