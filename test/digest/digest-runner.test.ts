import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventCatalog } from '../../src/catalog/event-catalog.js';
import { type DigestMetadata, DigestRunner } from '../../src/digest/digest-runner.js';
import { DigestScheduler } from '../../src/digest/digest-scheduler.js';
import { fireOn } from '../../src/digest/fire-times.js';
import { pacedPoster } from '../../src/digest/paced-poster.js';
import type { Subscription } from '../../src/digest/subscription.js';
import { SubscriptionStore } from '../../src/digest/subscription-store.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import type { SlackMessage } from '../../src/render/block-kit.js';
import { digestMessage, digestNowMessage, digestPausedMessage } from '../../src/render/digest-blocks.js';
import { md } from '../../src/render/mrkdwn.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { channelRefusal, personRefusal } from '../../src/slack/replies/slack-errors.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import { createTicketingClient } from '../../src/ticketing/create-client.js';
import { ManualClock } from '../helpers/clocks.js';
import { limits } from '../helpers/ticketing.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

interface Harness {
  sim: Simulator;
  /** Stands still until a test moves it; the retries' backoff runs on it. */
  clock: ManualClock;
  dir: string;
  posts: { channel: string; message: SlackMessage; metadata?: DigestMetadata; at: number }[];
  notices: { user: string; text: string }[];
  /** Every post tried, delivered or not. */
  attempts: { channel: string; at: number }[];
  /** Each look into a conversation's history, and whether it was a person's DM. */
  lookups: { channel: string; personal: boolean }[];
  logs: string[];
  /** A runner over the store file; call again to simulate a restart. */
  start(options?: {
    failChannels?: Record<string, string>;
    /** The next posts fail with a temporary Slack error (`internal_error`). */
    temporaryFailures?: { count: number };
    /** Reading these channels' (or DMs') history fails with this Slack error. */
    failLookups?: Record<string, string>;
    retryBaseMs?: number;
    /** An SQLite store in memory, for a run that never restarts (no file to sync on every write). */
    inMemory?: boolean;
  }): Promise<{ runner: DigestRunner<SlackMessage>; subscriptions: SubscriptionStore; store: StoreHandle }>;
}

async function harness(startAt: number, eventCount = 160): Promise<Harness> {
  const sim = await startSimulator({ anchorMs: startAt, eventCount });
  cleanup.push(() => sim.close());
  const dir = await mkdtemp(join(tmpdir(), 'eventops-digest-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock(startAt);
  const posts: Harness['posts'] = [];
  const notices: Harness['notices'] = [];
  const attempts: Harness['attempts'] = [];
  const lookups: Harness['lookups'] = [];
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });
  return {
    sim,
    clock,
    dir,
    posts,
    notices,
    attempts,
    lookups,
    logs,
    start: async (options = {}) => {
      const store = await openStore(
        options.inMemory ? 'sqlite://:memory:' : `sqlite://${join(dir, 'eventops.sqlite')}`,
      );
      cleanup.push(() => store.close());
      const client = createTicketingClient({
        apiUrl: sim.url,
        apiKey: sim.apiKeys[0] as string,
        limits: limits(),
      });
      cleanup.push(() => client.close());
      const subscriptions = new SubscriptionStore(store.keyValue, logger);
      const runner = new DigestRunner<SlackMessage>({
        subscriptions,
        messages: { digest: digestMessage, paused: digestPausedMessage },
        claims: store.claims,
        catalog: new EventCatalog({ client, clock, orgLimit: { limit: 180, windowMs: 60_000 } }),
        post: async (channel, message, metadata) => {
          attempts.push({ channel, at: Date.now() });
          const code = options.failChannels?.[channel];
          if (code)
            throw Object.assign(new Error(`An API error occurred: ${code}`), { data: { ok: false, error: code } });
          if (options.temporaryFailures && options.temporaryFailures.count > 0) {
            options.temporaryFailures.count -= 1;
            throw Object.assign(new Error('An API error occurred: internal_error'), {
              data: { ok: false, error: 'internal_error' },
            });
          }
          posts.push({ channel, message, metadata, at: Date.now() });
        },
        findPosted: async (channel, metadata, _sinceMs, personal) => {
          lookups.push({ channel, personal });
          const code = options.failLookups?.[channel];
          if (code)
            throw Object.assign(new Error(`An API error occurred: ${code}`), { data: { ok: false, error: code } });
          return posts.some(
            (p) => p.channel === channel && p.metadata?.event_payload.date === metadata.event_payload.date,
          );
        },
        notify: async (user, message) => {
          notices.push({ user, text: message.text });
        },
        channelRefusal: (error, personal) => (personal ? personRefusal(error) : channelRefusal(error)),
        clock,
        logger,
        graceMs: 2 * 3_600_000,
        ...(options.retryBaseMs ? { retryBaseMs: options.retryBaseMs } : {}),
      });
      cleanup.push(async () => runner.stop());
      return { runner, subscriptions, store };
    },
  };
}

const subscription = (
  channelId: string,
  timezone: string,
  time = '09:00',
  extra: Partial<Subscription> = {},
): Subscription => ({
  channelId,
  time,
  timezone,
  days: 1,
  skipEmpty: false,
  createdBy: 'U0OWNER',
  createdAt: '2026-11-01T00:00:00.000Z',
  status: 'active',
  ...extra,
});

describe('DigestRunner', () => {
  it('posts at the local time in two zones, events of the window soonest first, grouped by day', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 3, 15));
    const { runner, subscriptions } = await h.start();
    await subscriptions.put(subscription('C_KTM', 'Asia/Kathmandu', '09:00', { days: 3 }));
    await subscriptions.put(subscription('C_NFL', 'America/St_Johns'));

    expect(await runner.fire('C_KTM')).toMatchObject({ kind: 'sent', date: '2026-12-01' });
    h.clock.time = Date.UTC(2026, 11, 1, 12, 30);
    expect(await runner.fire('C_NFL')).toMatchObject({ kind: 'sent', date: '2026-12-01' });

    const [ktm, nfl] = h.posts;
    expect(ktm?.channel).toBe('C_KTM');
    expect(nfl?.channel).toBe('C_NFL');
    const text = JSON.stringify(ktm?.message.blocks);
    expect(text).toContain('Events the next 3 days');
    expect(text).toMatch(/\*\w+day,? \d+ December\* · \d+ events?/);
    expect(ktm?.message.blocks.length).toBeLessThanOrEqual(50);
    // Soonest first: every event id appears in start order.
    const ids = [...text.matchAll(/evt_[0-9a-f-]{36}/g)].map((m) => m[0]);
    const starts = ids.map((id) => h.sim.catalog.events.find((e) => e.id === id)?.startsAtMs ?? 0);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    for (const start of starts) {
      expect(start).toBeGreaterThanOrEqual(Date.UTC(2026, 11, 1, 3, 15));
      expect(start).toBeLessThan(Date.UTC(2026, 11, 4, 3, 15));
    }
  });

  it('sends nothing twice after a restart in the middle of the day', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 8, 0));
    const first = await h.start();
    await first.subscriptions.put(subscription('C1', 'Europe/Berlin'));
    expect(await first.runner.fire('C1')).toMatchObject({ kind: 'sent', date: '2026-12-01' });
    await first.store.close();

    h.clock.time = Date.UTC(2026, 11, 1, 12, 0);
    const second = await h.start();
    expect(await second.runner.catchUp()).toEqual([]);
    expect(await second.runner.fire('C1')).toMatchObject({ kind: 'already-sent' });
    expect(h.posts).toHaveLength(1);
    expect((await second.subscriptions.get('C1'))?.lastRun).toMatchObject({ date: '2026-12-01', outcome: 'sent' });
  });

  it('sends a digest missed within the grace period on start, and skips one missed for longer', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 10, 30));
    const { runner, subscriptions } = await h.start();
    await subscriptions.put(subscription('C_LATE', 'UTC', '09:00'));
    await subscriptions.put(subscription('C_TOO_LATE', 'UTC', '07:00'));
    const outcomes = await runner.catchUp();
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'sent', date: '2026-12-01' })]);
    expect(h.posts.map((p) => p.channel)).toEqual(['C_LATE']);
    expect(
      h.logs.some(
        (line) => line.includes('Skipped a digest missed outside the grace period') && line.includes('C_TOO_LATE'),
      ),
    ).toBe(true);
  });

  it('keeps 09:00 London time on the DST-change day', async () => {
    const h = await harness(Date.UTC(2027, 2, 28, 8, 0));
    const { runner, subscriptions } = await h.start();
    await subscriptions.put(subscription('C_LON', 'Europe/London'));
    h.clock.time = Date.UTC(2027, 2, 28, 7, 59);
    // Before 09:00 BST the latest digest was yesterday's, long past its grace.
    expect(await runner.catchUp()).toEqual([]);
    h.clock.time = Date.UTC(2027, 2, 28, 8, 0);
    expect(await runner.fire('C_LON')).toMatchObject({ kind: 'sent', date: '2027-03-28' });
  });

  it('shares one crawl among a hundred digests firing together', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0), 250);
    const { runner, subscriptions } = await h.start({ inMemory: true });
    const channels = Array.from({ length: 100 }, (_, i) => `C${String(i).padStart(3, '0')}`);
    for (const channel of channels) await subscriptions.put(subscription(channel, 'UTC'));
    const outcomes = await Promise.all(channels.map((channel) => runner.fire(channel)));
    expect(outcomes.every((o) => o.kind === 'sent')).toBe(true);
    expect(h.posts).toHaveLength(100);
    expect(h.sim.stats().requests).toBe(3);
  });

  it('marks a channel that refuses posts as failing, tells the owner once, and stops posting there', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const { runner, subscriptions } = await h.start({ failChannels: { C_GONE: 'is_archived' } });
    await subscriptions.put(subscription('C_GONE', 'UTC'));
    expect(await runner.fire('C_GONE')).toMatchObject({ kind: 'channel-failing', reason: 'is_archived' });
    expect(await subscriptions.get('C_GONE')).toMatchObject({ status: 'failing', failure: 'is_archived' });
    expect(h.notices).toEqual([{ user: 'U0OWNER', text: expect.stringContaining('is paused') }]);
    h.clock.time += 86_400_000;
    expect(await runner.fire('C_GONE')).toMatchObject({ kind: 'channel-failing' });
    expect(await runner.catchUp()).toEqual([]);
    expect(h.notices).toHaveLength(1);
  });

  it('says "nothing scheduled", or nothing at all when the channel chose to skip', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0), 1);
    const { runner, subscriptions } = await h.start();
    h.clock.time = Date.UTC(2027, 5, 1, 9, 0);
    await subscriptions.put(subscription('C_EMPTY', 'UTC'));
    await subscriptions.put(subscription('C_SKIP', 'UTC', '09:00', { skipEmpty: true }));
    expect(await runner.fire('C_EMPTY')).toMatchObject({ kind: 'sent', events: 0 });
    expect(await runner.fire('C_SKIP')).toMatchObject({ kind: 'skipped-empty' });
    expect(h.posts).toHaveLength(1);
    expect(h.posts[0]?.message.text).toContain('nothing scheduled today');
  });

  it('reads subscriptions back from the SQLite file after a restart', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const first = await h.start();
    const stored = [
      subscription('C_A', 'Asia/Kolkata', '07:30', { days: 7 }),
      subscription('C_B', 'America/St_Johns', '18:45'),
    ];
    for (const s of stored) await first.subscriptions.put(s);
    await first.subscriptions.remove('C_A');
    await first.subscriptions.put(stored[0] as Subscription);
    await first.store.close();
    const second = await h.start();
    const byChannel = (list: Subscription[]) => [...list].sort((x, y) => x.channelId.localeCompare(y.channelId));
    expect(byChannel(await second.subscriptions.all())).toEqual(byChannel(stored));
  });
});

describe('pacedPoster', () => {
  it('spaces posts to one channel and lets other channels go in parallel', async () => {
    const seen: { channel: string; at: number }[] = [];
    const post = pacedPoster(
      async (channel: string, _message: SlackMessage) => {
        seen.push({ channel, at: Date.now() });
      },
      { perChannelMs: 150, concurrency: 4 },
    );
    const message = { text: md`x`, blocks: [] };
    await Promise.all([post('A', message), post('A', message), post('A', message), post('B', message)]);
    const [a0 = 0, a1 = 0, a2 = 0] = seen.filter((s) => s.channel === 'A').map((s) => s.at);
    expect(a1 - a0).toBeGreaterThanOrEqual(145);
    expect(a2 - a1).toBeGreaterThanOrEqual(145);
    const b = seen.find((s) => s.channel === 'B')?.at ?? 0;
    expect(b - a0).toBeLessThan(100);
  });
});

describe('digests are never lost and never sent twice', () => {
  it('retries a temporary failure with backoff until it is delivered, and only then says "already posted"', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const failures = { count: 2 };
    const { runner, subscriptions } = await h.start({ temporaryFailures: failures });
    await subscriptions.put(subscription('C1', 'UTC'));
    const first = await runner.fire('C1');
    expect(first).toMatchObject({ kind: 'failed', date: '2026-12-01', retryAt: h.clock.time + 30_000 });
    expect(runner.retriesPending()).toEqual(['digest:C1:2026-12-01']);
    // Not "already posted": a manual run tries again at once (and fails once more here); the
    // backoff doubles, and the retry waits for its time on the runner's clock.
    expect(await runner.fire('C1', { manual: true })).toMatchObject({
      kind: 'failed',
      retryAt: h.clock.time + 60_000,
    });
    await h.clock.advance(59_000);
    expect(h.attempts).toHaveLength(2);
    await h.clock.advance(1_000);
    await vi.waitFor(() => expect(h.posts).toHaveLength(1), { timeout: 3_000 });
    expect(failures.count).toBe(0);
    // Forgotten once the delivery is settled (just after the post).
    await vi.waitFor(() => expect(runner.retriesPending()).toEqual([]), { timeout: 3_000 });
    expect(await runner.fire('C1', { manual: true })).toMatchObject({ kind: 'already-sent' });
    expect(h.posts).toHaveLength(1);
    expect(h.posts[0]?.metadata).toEqual({
      event_type: 'eventops_digest',
      event_payload: { subscription: 'C1', date: '2026-12-01' },
    });
  });

  it('schedules no retry once stopped: a run failing during shutdown leaves its claim to the next start', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const { runner, subscriptions } = await h.start({ temporaryFailures: { count: 1 } });
    await subscriptions.put(subscription('C1', 'UTC'));
    runner.stop();
    const outcome = await runner.fire('C1');
    expect(outcome).toMatchObject({ kind: 'failed', retryAt: undefined, stopping: true });
    expect(digestNowMessage(outcome, h.clock.time, undefined).text).toContain('eventops is shutting down');
    expect(runner.retriesPending()).toEqual([]);
    expect(h.clock.nextAt()).toBeUndefined();
  });

  it('after a crash mid-post, reads the channel and does not post a digest that went out', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const first = await h.start();
    await first.subscriptions.put(subscription('C1', 'UTC'));
    // The crashed run claimed the date and posted, but never settled its claim.
    await first.store.claims.claim('digest:C1:2026-12-01', 'crashed-run', h.clock.time);
    h.posts.push({
      channel: 'C1',
      message: { text: md`old`, blocks: [] },
      metadata: { event_type: 'eventops_digest', event_payload: { subscription: 'C1', date: '2026-12-01' } },
      at: Date.now(),
    });
    await first.store.close();

    h.clock.time += 15 * 60_000;
    const second = await h.start();
    expect(await second.runner.catchUp()).toEqual([expect.objectContaining({ kind: 'already-sent' })]);
    expect(h.posts).toHaveLength(1);
    expect(await second.store.claims.get('digest:C1:2026-12-01')).toMatchObject({ state: 'done' });
  });

  it('after a crash before the post, recovers the unsettled claim and posts once', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const first = await h.start();
    await first.subscriptions.put(subscription('C1', 'UTC'));
    await first.store.claims.claim('digest:C1:2026-12-01', 'crashed-run', h.clock.time);
    await first.store.close();

    // Within the claim's lease another run may still be posting: leave it.
    h.clock.time += 60_000;
    const second = await h.start();
    expect(await second.runner.catchUp()).toEqual([expect.objectContaining({ kind: 'in-progress' })]);
    h.clock.time += 15 * 60_000;
    expect(await second.runner.catchUp()).toEqual([expect.objectContaining({ kind: 'sent' })]);
    expect(await second.runner.catchUp()).toEqual([]);
    expect(h.posts).toHaveLength(1);
  });

  it('runs a digest set inside the spring-forward gap once, at the jump (02:30 New York on 2027-03-14)', async () => {
    const jump = Date.UTC(2027, 2, 14, 7, 0); // 02:00 EST became 03:00 EDT
    const h = await harness(Date.UTC(2027, 2, 13, 17, 0));
    const { runner, subscriptions } = await h.start();
    const gapDigest = subscription('C_NY', 'America/New_York', '02:30');
    await subscriptions.put(gapDigest);
    expect(fireOn(gapDigest, { year: 2027, month: 3, day: 14 }).at).toBe(jump);
    const scheduler = new DigestScheduler({ runner, logger: silentLogger, clock: h.clock });
    cleanup.push(async () => scheduler.stop());
    scheduler.schedule(gapDigest);
    // node-cron itself skips the day (no 02:30 exists), so the scheduler arms a one-off run at the jump.
    const cronRuns = scheduler.nextRuns('C_NY', 3).map((date) => date.toISOString());
    expect(cronRuns).not.toContain(new Date(jump).toISOString());
    expect(scheduler.gapRunAt('C_NY')).toBe(jump);
    h.clock.time = jump;
    expect(await runner.fire('C_NY', { scheduledAt: jump })).toMatchObject({ kind: 'sent', date: '2027-03-14' });
    expect(await runner.fire('C_NY', { scheduledAt: jump + 3_600_000 })).toMatchObject({ kind: 'already-sent' });
    expect(h.posts).toHaveLength(1);
  });

  it('prunes claims older than 14 days', async () => {
    const h = await harness(Date.UTC(2026, 11, 20, 9, 0));
    const { runner, store } = await h.start();
    await store.claims.claim('digest:C1:2026-12-01', 'old', Date.UTC(2026, 11, 1, 9, 0));
    await store.claims.claim('digest:C1:2026-12-19', 'recent', Date.UTC(2026, 11, 19, 9, 0));
    await runner.catchUp();
    expect(await store.claims.get('digest:C1:2026-12-01')).toBeUndefined();
    expect(await store.claims.get('digest:C1:2026-12-19')).toBeDefined();
  });
});

describe('digest filters', () => {
  it('lists only events whose name matches --match, and posts only on its --weekdays', async () => {
    // Tuesday 1 December 2026, 09:00 UTC.
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const { runner, subscriptions } = await h.start();
    const named = h.sim.catalog.events.filter((event) => event.startsAtMs > h.clock.time).slice(0, 40);
    for (const event of named) event.name = 'Ordinary gathering';
    const target = named[0];
    if (!target) throw new Error('no event');
    target.name = 'Zanzibar Nights';
    await subscriptions.put(subscription('C_MATCH', 'UTC', '09:00', { days: 14, match: 'zanzibar' }));
    await subscriptions.put(subscription('C_WEEKEND', 'UTC', '09:00', { weekdays: [6, 7] }));

    expect(await runner.fire('C_MATCH')).toMatchObject({ kind: 'sent', events: 1 });
    expect(JSON.stringify(h.posts[0]?.message.blocks)).toContain('Zanzibar Nights');
    expect(await runner.fire('C_WEEKEND')).toMatchObject({ kind: 'not-this-weekday', date: '2026-12-01' });
    expect(await runner.catchUp()).toEqual([]);
    expect(await runner.fire('C_WEEKEND', { manual: true })).toMatchObject({ kind: 'sent' });
    expect(h.posts.map((post) => post.channel)).toEqual(['C_MATCH', 'C_WEEKEND']);
  });
});

/** A person's own digest: keyed by their user id, posted to it (their DM). */
const personal = (userId: string, timezone: string, time = '09:00', extra: Partial<Subscription> = {}) =>
  subscription(userId, timezone, time, { personal: true, createdBy: userId, ...extra });

describe("personal digests (DM), with the channel digests' guarantees", () => {
  it("posts to the person's id with metadata naming them, once, also after a restart", async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 14, 5));
    const first = await h.start();
    await first.subscriptions.put(personal('U0ALICE', 'America/New_York'));
    expect(await first.runner.fire('U0ALICE')).toMatchObject({ kind: 'sent', date: '2026-12-01' });
    expect(h.posts.map((p) => [p.channel, p.metadata?.event_payload])).toEqual([
      ['U0ALICE', { subscription: 'U0ALICE', date: '2026-12-01' }],
    ]);
    await first.store.close();

    h.clock.time += 30 * 60_000;
    const second = await h.start();
    expect(await second.runner.catchUp()).toEqual([]);
    expect(await second.runner.fire('U0ALICE')).toMatchObject({ kind: 'already-sent' });
    expect(await second.runner.fire('U0ALICE', { manual: true })).toMatchObject({ kind: 'already-sent' });
    expect(h.posts).toHaveLength(1);
  });

  it('catches up a DM digest missed within the grace period on start', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 14, 30));
    const { runner, subscriptions } = await h.start();
    await subscriptions.put(personal('U0ALICE', 'America/New_York'));
    expect(await runner.catchUp()).toEqual([expect.objectContaining({ kind: 'sent', date: '2026-12-01' })]);
    expect(h.posts.map((p) => p.channel)).toEqual(['U0ALICE']);
  });

  it('retries a temporary failure of a DM with backoff until it is delivered once', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const failures = { count: 2 };
    const { runner, subscriptions } = await h.start({ temporaryFailures: failures });
    await subscriptions.put(personal('U0ALICE', 'UTC'));
    expect(await runner.fire('U0ALICE')).toMatchObject({ kind: 'failed', retryAt: h.clock.time + 30_000 });
    await h.clock.advance(30_000);
    // The retry failed too, and waits twice as long for the next.
    await vi.waitFor(() => expect(h.clock.nextAt()).toBe(h.clock.time + 60_000), { timeout: 3_000 });
    expect(h.attempts).toHaveLength(2);
    await h.clock.advance(60_000);
    await vi.waitFor(() => expect(h.posts).toHaveLength(1), { timeout: 3_000 });
    expect(h.attempts).toHaveLength(3);
    expect(await runner.fire('U0ALICE', { manual: true })).toMatchObject({ kind: 'already-sent' });
    expect(h.posts).toHaveLength(1);
  });

  it("after a crash mid-post, reads the person's DM and does not send a digest that went out", async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const first = await h.start();
    await first.subscriptions.put(personal('U0ALICE', 'UTC'));
    await first.store.claims.claim('digest:U0ALICE:2026-12-01', 'crashed-run', h.clock.time);
    h.posts.push({
      channel: 'U0ALICE',
      message: { text: md`old`, blocks: [] },
      metadata: { event_type: 'eventops_digest', event_payload: { subscription: 'U0ALICE', date: '2026-12-01' } },
      at: Date.now(),
    });
    await first.store.close();

    h.clock.time += 15 * 60_000;
    const second = await h.start();
    expect(await second.runner.catchUp()).toEqual([expect.objectContaining({ kind: 'already-sent' })]);
    expect(h.lookups).toEqual([{ channel: 'U0ALICE', personal: true }]);
    expect(h.posts).toHaveLength(1);
    expect(await second.store.claims.get('digest:U0ALICE:2026-12-01')).toMatchObject({ state: 'done' });
  });

  it('after a crash before the post, recovers the claim and sends the DM once', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const first = await h.start();
    await first.subscriptions.put(personal('U0ALICE', 'UTC'));
    await first.store.claims.claim('digest:U0ALICE:2026-12-01', 'crashed-run', h.clock.time);
    await first.store.close();

    h.clock.time += 15 * 60_000;
    const second = await h.start();
    expect(await second.runner.catchUp()).toEqual([expect.objectContaining({ kind: 'sent' })]);
    expect(await second.runner.catchUp()).toEqual([]);
    expect(h.posts.map((p) => p.channel)).toEqual(['U0ALICE']);
  });

  it.each(['user_not_found', 'account_inactive', 'user_disabled', 'cannot_dm_bot'])(
    'pauses the digest of a person Slack refuses with %s: no retry, no DM about it, nothing on later days',
    async (code) => {
      const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
      const { runner, subscriptions } = await h.start({ failChannels: { U0GONE: code }, retryBaseMs: 20 });
      await subscriptions.put(personal('U0GONE', 'UTC'));
      expect(await runner.fire('U0GONE')).toEqual({ kind: 'channel-failing', date: '2026-12-01', reason: code });
      expect(await subscriptions.get('U0GONE')).toMatchObject({ status: 'failing', failure: code });
      // No retry is scheduled (a temporary failure would have one: see the retry tests above).
      expect(runner.retriesPending()).toEqual([]);
      expect(h.attempts).toHaveLength(1);
      expect(h.notices).toEqual([]);
      h.clock.time += 86_400_000;
      expect(await runner.catchUp()).toEqual([]);
      expect(await runner.fire('U0GONE')).toMatchObject({ kind: 'channel-failing', reason: code });
      expect(h.attempts).toHaveLength(1);
      expect(h.logs.some((line) => line.includes('their digest is paused'))).toBe(true);
    },
  );

  it('pauses a person who left when the recovery cannot open their DM (user_not_found), instead of retrying', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const first = await h.start();
    await first.subscriptions.put(personal('U0GONE', 'UTC'));
    await first.store.claims.claim('digest:U0GONE:2026-12-01', 'crashed-run', h.clock.time);
    await first.store.close();

    h.clock.time += 15 * 60_000;
    const second = await h.start({ failLookups: { U0GONE: 'user_not_found' }, retryBaseMs: 20 });
    expect(await second.runner.catchUp()).toEqual([
      { kind: 'channel-failing', date: '2026-12-01', reason: 'user_not_found' },
    ]);
    expect(second.runner.retriesPending()).toEqual([]);
    expect(h.attempts).toEqual([]);
    expect(h.lookups).toHaveLength(1);
    expect(await second.subscriptions.get('U0GONE')).toMatchObject({ status: 'failing', failure: 'user_not_found' });
  });

  it('keeps a channel digest retrying on a person-only code: user_not_found is no channel refusal', async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const { runner, subscriptions } = await h.start({ failChannels: { C1: 'user_not_found' }, retryBaseMs: 60_000 });
    await subscriptions.put(subscription('C1', 'UTC'));
    expect(await runner.fire('C1')).toMatchObject({ kind: 'failed', retryAt: expect.any(Number) });
    expect(await subscriptions.get('C1')).toMatchObject({ status: 'active' });
  });

  it("keeps a person's digest and a channel's apart: each has its own claim, post and pause", async () => {
    const h = await harness(Date.UTC(2026, 11, 1, 9, 0));
    const { runner, subscriptions } = await h.start({ failChannels: { U0GONE: 'user_not_found' } });
    await subscriptions.put(subscription('C1', 'UTC'));
    await subscriptions.put(personal('U0ALICE', 'UTC'));
    await subscriptions.put(personal('U0GONE', 'UTC'));
    const outcomes = await runner.catchUp();
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['channel-failing', 'sent', 'sent']);
    expect(h.posts.map((p) => p.channel).sort()).toEqual(['C1', 'U0ALICE']);
    expect(await subscriptions.get('C1')).toMatchObject({ status: 'active' });
  });
});
