import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { ComposeOptions } from '../../src/compose.js';
import { type BotRig, startBot } from '../helpers/bot.js';
import { command, nthResponse } from '../helpers/bot-actions.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const base = (r: BotRig) => r.url.replace('/slack/events', '');
const get = async (r: BotRig, path: string) => {
  const response = await fetch(`${base(r)}${path}`);
  return { status: response.status, text: await response.text() };
};

describe('health and metrics on the HTTP port', () => {
  it('is alive at once, ready once the store answers and the service accepted the key', async () => {
    rig = await startBot();
    expect(await get(rig, '/healthz')).toEqual({ status: 200, text: '{"alive":true}' });
    const before = await get(rig, '/readyz');
    expect(before.status).toBe(503);
    expect(JSON.parse(before.text)).toEqual({ ready: false, store: 'ok', api: 'unknown' });
    await nthResponse(rig, (await command(rig, 'list')).responseUrl);
    expect(await get(rig, '/readyz')).toMatchObject({ status: 200 });
  });

  it('is not ready when the service rejects the key', async () => {
    rig = await startBot({ env: { TICKETING_API_KEY: 'sk_wrong_key_for_test' } });
    await nthResponse(rig, (await command(rig, 'list')).responseUrl);
    const ready = await get(rig, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toMatchObject({ api: 'rejected' });
  });

  it('exposes the named series in Prometheus format', async () => {
    rig = await startBot();
    rig.slack.failNext('chat.postMessage', 'not_in_channel');
    await nthResponse(rig, (await command(rig, 'list')).responseUrl);
    const event = rig.sim.catalog.events[0];
    const report = await command(rig, `report ${event?.id}`);
    // Not in the channel: the report comes privately, its last answer the report itself.
    await rig.slack.waitFor(() =>
      rig?.slack.responses.find(
        (r) => r.method === new URL(report.responseUrl).pathname && JSON.stringify(r.args).includes('Tickets sold'),
      ),
    );
    const r = rig;
    // The listener finishes just after its last answer (it records the report too).
    await expect
      .poll(async () => (await get(r, '/metrics')).text)
      .toContain('eventops_command_duration_seconds_count{kind="command"} 2');
    const metrics = await get(rig, '/metrics');
    expect(metrics.status).toBe(200);
    for (const series of [
      'eventops_api_requests_total{endpoint="GET /v1/events",status="200"} 2',
      'eventops_api_rate_limited_total',
      'eventops_budget_remaining',
      'eventops_report_queue_depth 0',
      'eventops_report_wait_seconds_count 1',
      'eventops_digests_total',
      'eventops_slack_api_errors_total{call="chat.postMessage",error="not_in_channel"} 1',
      'eventops_command_duration_seconds_count{kind="command"} 2',
    ]) {
      expect(metrics.text).toContain(series);
    }
    expect(metrics.text).toMatch(
      /eventops_api_requests_total\{endpoint="GET \/v1\/events\/\{id\}\/report",status="200"\} 1/,
    );
  });
});

describe('health and metrics when Redis is down or slow', () => {
  let redis: (RedisServer & { stopped?: boolean }) | undefined;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  afterEach(async () => {
    process.off('unhandledRejection', onRejection);
    rejections.length = 0;
    await rig?.close();
    rig = undefined;
    if (redis && !redis.stopped) await redis.stop();
    redis = undefined;
  });

  const startOnRedis = async (compose: Partial<ComposeOptions> = {}) => {
    process.on('unhandledRejection', onRejection);
    redis = await startRedis();
    rig = await startBot({ env: { STORE_URL: redis.url }, compose });
    // The key accepted, the store answering: ready, every gauge read.
    await nthResponse(rig, (await command(rig, 'list')).responseUrl);
    expect((await get(rig, '/readyz')).status).toBe(200);
    const metrics = await get(rig, '/metrics');
    expect(metrics.text).toMatch(/^eventops_budget_remaining \d+$/m);
    expect(metrics.text).toMatch(/^eventops_report_queue_depth 0$/m);
    return rig;
  };
  const timed = async (r: BotRig, path: string) => {
    const started = performance.now();
    const answer = await get(r, path);
    return { ...answer, ms: performance.now() - started };
  };
  /** Both scraped at once, twice (the second while the first's reads may still hang). */
  const scrapeTwice = async (r: BotRig) => {
    const answers = [];
    for (let round = 0; round < 2; round += 1)
      answers.push(...(await Promise.all([timed(r, '/metrics'), timed(r, '/readyz')])));
    return answers;
  };

  it('answers /metrics and /readyz within 2 s once Redis is gone, leaving out the gauges it cannot read', async () => {
    // The default deadlines (1 s, 1.8 s) are the ones proven to fit in 2 s.
    const r = await startOnRedis();
    await redis?.stop();
    if (redis) redis.stopped = true;
    for (const answer of await scrapeTwice(r)) {
      expect(answer.ms).toBeLessThan(2_000);
      if (answer.text.startsWith('{')) {
        expect(answer.status).toBe(503);
        expect(JSON.parse(answer.text)).toMatchObject({ ready: false, store: 'failing' });
      } else {
        expect(answer.status).toBe(200);
        expect(answer.text).not.toMatch(/^eventops_budget_remaining /m);
        expect(answer.text).not.toMatch(/^eventops_report_queue_depth /m);
        expect(answer.text).toMatch(/^eventops_metric_collector_errors_total\{collector="budget"\} [1-9]/m);
        expect(answer.text).toMatch(/^eventops_metric_collector_errors_total\{collector="report_queue"\} [1-9]/m);
        // The rest of the scrape is still there.
        expect(answer.text).toContain('eventops_api_requests_total{endpoint="GET /v1/events",status="200"}');
      }
    }
    // Reads given up on may still fail later: none of them goes unhandled. The store's client fails
    // every read it holds once it stops reconnecting, the budget's and the probe's among them.
    const logged = (msg: string) => r.logs.some((line) => (JSON.parse(line) as { msg?: string }).msg === msg);
    await waitFor(() => logged('Redis failed') && logged('The store failed'), {
      what: "the store's client to fail the reads it held",
      intervalMs: 50,
    });
    expect(rejections).toEqual([]);
  }, 60_000);

  it('answers within 2 s while Redis is paused, and is ready again once it answers', async () => {
    // Short deadlines, so that a short pause outlasts both rounds of scrapes.
    const r = await startOnRedis({
      observability: { probeTimeoutMs: 300, collectTimeoutMs: 300, scrapeTimeoutMs: 600 },
    });
    const admin = new Redis(redis?.url ?? '');
    try {
      await admin.call('CLIENT', 'PAUSE', '2500', 'ALL');
      for (const answer of await scrapeTwice(r)) {
        expect(answer.ms).toBeLessThan(2_000);
        if (answer.text.startsWith('{')) expect(JSON.parse(answer.text)).toMatchObject({ store: 'failing' });
        else expect(answer.text).toMatch(/^eventops_metric_collector_errors_total\{collector="budget"\} [1-9]/m);
      }
      await expect.poll(async () => (await get(r, '/readyz')).status, { timeout: 10_000, interval: 50 }).toBe(200);
      await expect
        .poll(async () => (await get(r, '/metrics')).text, { timeout: 5_000 })
        .toMatch(/^eventops_budget_remaining \d+$/m);
    } finally {
      admin.disconnect();
    }
    expect(rejections).toEqual([]);
  }, 60_000);
});

describe('logs', () => {
  it('carry one request id from the command to the API calls it makes', async () => {
    rig = await startBot();
    await nthResponse(rig, (await command(rig, 'list')).responseUrl);
    const lines = rig.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const commandLine = lines.find((line) => line.msg === 'Slash command');
    const crawlLine = lines.find((line) => line.msg === 'Event catalog refreshed');
    expect(commandLine?.requestId).toMatch(/^[0-9a-f]{8}$/);
    expect(crawlLine?.requestId).toBe(commandLine?.requestId);
    expect(rig.logs.join('\n')).not.toContain(rig.sim.apiKeys[0]);
  });
});
