import { describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/simulator/seed.js';
import { startBot } from '../helpers/bot.js';
import { command } from '../helpers/bot-actions.js';
import { useRedis } from '../helpers/redis-server.js';

const redis = useRedis();

/*
 * Issue 37 item 2 with replicas: the shared queue persists where a report's message lives, and
 * whichever replica fetches the report finishes it. A streamed wait is a reply under its notice:
 * the replica that delivers the report edits the notice to it and stops the reply (the reply's ts
 * crosses Redis with the notice's).
 */
describe('a streamed report in the shared queue (Redis mode)', () => {
  it('edits the notice to the report and stops its reply, on the replica that delivers it', async () => {
    const rig = await startBot({
      env: { STORE_URL: `${redis.url}/3`, TICKETING_REPORT_LIMIT: '1/2s', REPORT_STREAMING: 'on' },
      compose: { progressIntervalMs: 100 },
    });
    redis.closers.push(() => rig.close());
    rig.slack.allowStreaming();
    const [ahead, event] = rig.sim.catalog.events.filter((each) => each.status === 'published') as [SimEvent, SimEvent];
    await command(rig, `report ${ahead.id}`, 'U0BOB', 'C0AHEAD');
    // The shared queue fetches it within its slot; on a loaded machine that takes a few seconds.
    await expect
      .poll(() => rig.sim.stats().log.filter((entry) => entry.path.endsWith('/report')).length, { timeout: 15_000 })
      .toBe(1);
    await command(rig, `report ${event.id}`, 'U0EDITOR', 'C0OPS');
    const stream = await rig.slack.waitFor(
      () => [...rig.slack.streams.values()].find((each) => each.channel === 'C0OPS' && each.stopped),
      20_000,
    );
    expect(stream.chunks.filter((chunk) => chunk.id === 'draw').at(-1)).toMatchObject({ status: 'complete' });
    // One notice, the stream's parent, edited once: to the report.
    const inChannel = (method: string) =>
      rig.slack.calls.filter((call) => call.args.channel === 'C0OPS' && call.method === method);
    expect(inChannel('chat.postMessage')).toHaveLength(1);
    const edits = inChannel('chat.update');
    expect(edits).toHaveLength(1);
    expect(edits[0]?.args.ts).toBe(stream.threadTs);
    expect(JSON.stringify(edits[0]?.args.blocks)).toContain('Tickets sold');
  });
});
