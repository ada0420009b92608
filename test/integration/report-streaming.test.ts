import { afterEach, describe, expect, it } from 'vitest';
import { escapeText } from '../../src/render/mrkdwn.js';
import type { SimEvent } from '../../src/simulator/seed.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command } from '../helpers/bot-actions.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { commandBody, postSigned } from '../helpers/slack-requests.js';

/*
 * Issue 37 item 2: a report asked for in a channel streams its wait (its place in the queue, the
 * fetch) and stops as the report's blocks; where Slack refuses streaming, today's notice is
 * edited. The real bot (Bolt over signed requests, the simulator over loopback, a fake Slack),
 * with one report call every four seconds so that a report waits its turn.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const published = (r: BotRig): SimEvent[] => r.sim.catalog.events.filter((event) => event.status === 'published');
const reportPaths = (r: BotRig) => r.sim.stats().log.filter((entry) => entry.path.endsWith('/report'));
type Chunk = Record<string, unknown>;
const tasks = (chunks: Chunk[], id: string) =>
  chunks.filter((chunk) => chunk.type === 'task_update' && chunk.id === id);
/** The calls that made one report's message in a channel (its stream or its notice and edits), not its file. */
const messageCalls = (calls: SlackCall[], channel: string) =>
  calls.filter(
    (call) =>
      call.args.channel === channel &&
      /^chat\.(postMessage|update|startStream|appendStream|stopStream)$/.test(call.method),
  );

describe('a report asked for in a channel', () => {
  it('streams its steps in a reply under its notice while it waits, and edits the notice to the report', async () => {
    rig = await startBot({ env: { TICKETING_REPORT_LIMIT: '1/4s', REPORT_STREAMING: 'on' } });
    const r = rig;
    r.slack.allowStreaming();
    const [ahead, event] = published(r) as [SimEvent, SimEvent];
    const authTests = () => r.slack.calls.filter((call) => call.method === 'auth.test').length;
    // The window's one call goes to another person's report: this one waits its turn.
    await command(r, `report ${ahead.id}`, 'U0BOB', 'C0AHEAD');
    await expect.poll(() => reportPaths(r).length, { timeout: 15_000 }).toBe(1);
    await command(r, `report ${event.id}`, 'U0EDITOR', 'C0OPS');
    const stream = await r.slack.waitFor(() =>
      [...r.slack.streams.values()].find((each) => each.channel === 'C0OPS' && each.stopped),
    );
    // The stream is a reply under the notice posted first (Slack streams only replies).
    const notice = r.slack.calls.find((call) => call.method === 'chat.postMessage' && call.args.channel === 'C0OPS');
    const noticeTs =
      r.slack.postedTs[r.slack.calls.filter((call) => call.method === 'chat.postMessage').indexOf(notice as SlackCall)];
    expect(noticeTs).toBeDefined();
    expect(stream.threadTs).toBe(noticeTs);
    // On the way: the plan named after the event, its place in the queue, the fetch, then every step done.
    expect(stream.chunks[0]).toMatchObject({ type: 'plan_update' });
    // The event's name, escaped: a name such as `<!channel>` pings nobody from a plan's title either.
    expect(String(stream.chunks[0]?.title)).toContain(escapeText(event.name.slice(0, 20)));
    expect(tasks(stream.chunks, 'queue')[0]).toMatchObject({ status: 'in_progress' });
    expect(String(tasks(stream.chunks, 'queue')[0]?.details)).toMatch(/^position 1, about \d+ s$/);
    // The fetch: pending while it waits, then done (its "in progress" may be overtaken by the report).
    expect(tasks(stream.chunks, 'fetch').map((chunk) => chunk.status)).toEqual(
      expect.arrayContaining(['pending', 'complete']),
    );
    expect(tasks(stream.chunks, 'draw').at(-1)).toMatchObject({ status: 'complete' });
    // The figures are in the notice, once: the reply carries the steps only.
    expect(stream.blocks).toBeUndefined();
    const edits = r.slack.calls.filter((call) => call.method === 'chat.update' && call.args.channel === 'C0OPS');
    expect(edits).toHaveLength(1);
    expect(edits[0]?.args.ts).toBe(noticeTs);
    expect(JSON.stringify(edits[0]?.args.blocks)).toContain('Tickets sold');
    // The full report as a file, in the notice's thread beside the stream.
    const upload = await r.slack.waitFor(() =>
      r.slack.calls.find((call) => call.method === 'files.completeUploadExternal' && call.args.thread_ts === noticeTs),
    );
    expect(upload).toBeDefined();
    const made = messageCalls(r.slack.calls, 'C0OPS').map((call) => call.method);
    expect(made.slice(0, 2)).toEqual(['chat.postMessage', 'chat.startStream']);
    expect(made.filter((method) => method === 'chat.postMessage')).toHaveLength(1);
    // The stream is addressed to the team Slack named at start, and the figures rule knows the
    // bot's organization from the same answer: the process asked who it is once.
    expect(authTests()).toBe(1);

    // The same report again (cached, no call), where Slack now refuses streaming: the notice, edited.
    r.slack.refusedMethods.add('chat.startStream');
    await command(r, `report ${event.id}`, 'U0EDITOR', 'C0OPS2');
    const edited = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (call) =>
          call.method === 'chat.update' &&
          call.args.channel === 'C0OPS2' &&
          JSON.stringify(call.args.blocks).includes('Tickets sold'),
      ),
    );
    expect(edited.args.blocks).toEqual(edits[0]?.args.blocks);
    expect(reportPaths(r)).toHaveLength(2);
    // A method Slack does not have is refused everywhere: a third report tries no stream at all,
    // and the operator was told which method and why.
    await command(r, `report ${event.id}`, 'U0EDITOR', 'C0OPS3');
    await r.slack.waitFor(() =>
      r.slack.calls.find((call) => call.method === 'chat.update' && call.args.channel === 'C0OPS3'),
    );
    // C0AHEAD's, C0OPS's and C0OPS2's refused one: none for C0OPS3.
    expect(r.slack.calls.filter((call) => call.method === 'chat.startStream').map((call) => call.args.channel)).toEqual(
      ['C0AHEAD', 'C0OPS', 'C0OPS2'],
    );
    const warned = r.logs.filter((line) => line.includes('"level":"warn"') && line.includes('chat.startStream'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('unknown_method');
  });

  it('falls back to the notice edited in place when Slack refuses the stream, and delivers the report', async () => {
    rig = await startBot({ env: { REPORT_STREAMING: 'on' } });
    const r = rig;
    // As a workspace without streaming: the fake Slack answers unknown_method to the stream methods.
    const [event] = published(r) as [SimEvent];
    await command(r, `report ${event.id}`, 'U0EDITOR', 'C0OPS');
    const report = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (call) =>
          call.method === 'chat.update' &&
          call.args.channel === 'C0OPS' &&
          JSON.stringify(call.args.blocks).includes('Tickets sold'),
      ),
    );
    expect(report).toBeDefined();
    const made = messageCalls(r.slack.calls, 'C0OPS').map((call) => call.method);
    expect(made.slice(0, 2)).toEqual(['chat.postMessage', 'chat.startStream']);
    expect(made.filter((method) => method.endsWith('Stream'))).toEqual(['chat.startStream']);
    // Every stream the bot asked for was a reply, addressed to the person who asked.
    const start = r.slack.calls.find((call) => call.method === 'chat.startStream');
    expect(start?.args).toMatchObject({ thread_ts: expect.any(String), recipient_user_id: 'U0EDITOR' });
  });

  it('addresses its stream to the team of the person who asked, not the bot’s', async () => {
    rig = await startBot({ env: { REPORT_STREAMING: 'on' } });
    const r = rig;
    r.slack.allowStreaming();
    const [event] = published(r) as [SimEvent];
    // Asked from another workspace of the organization (the bot's is T0001).
    const body = commandBody({
      text: `report ${event.id}`,
      user_id: 'U0GUEST',
      channel_id: 'C0SHARED',
      team_id: 'T0OTHER',
      response_url: r.slack.responseUrl(),
    });
    expect((await postSigned(r.url, SIGNING_SECRET, body)).status).toBe(200);
    const start = await r.slack.waitFor(() => r.slack.calls.find((call) => call.method === 'chat.startStream'));
    expect(start.args).toMatchObject({ recipient_user_id: 'U0GUEST', recipient_team_id: 'T0OTHER' });
  });
});
