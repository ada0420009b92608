import { afterEach, describe, expect, it } from 'vitest';
import type { RecentActivity } from '../../src/store/activity-store.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { eventBody, postSignedJson } from '../helpers/slack-requests.js';

/**
 * App Home shows what its reads return within a moment and leaves a slow one out, so a slow store
 * never holds the tab back. A read it left out for being slow is shown by one more view once it
 * answers: before, that part stayed missing until the person opened the tab again (and a test that
 * looked for it failed on a loaded machine).
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const published = (r: BotRig) =>
  r.slack.calls.filter((call) => call.method === 'views.publish').map((call) => JSON.stringify(call.args.view));

/** A bot whose catalog is in memory, and a way to add a report to U0EDITOR's recent activity. */
async function homeRig() {
  rig = await startBot();
  const r = rig;
  await r.bot.catalog.snapshot();
  const [event] = r.sim.catalog.events;
  if (!event) throw new Error('no events');
  const report = (eventName: string) =>
    r.bot.activity.recordReport({ at: new Date().toISOString(), userId: 'U0EDITOR', eventId: event.id, eventName });
  return { r, report };
}

/**
 * Counts the person's recent-activity reads. With `holdFirst`, the first answers (as the activity
 * stood when it was read) only once the test calls `answer`.
 */
function activityReads(r: BotRig, holdFirst: boolean) {
  let answer: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const recent = r.bot.activity.recent.bind(r.bot.activity);
  let reads = 0;
  r.bot.activity.recent = async (userId: string): Promise<RecentActivity> => {
    reads += 1;
    const then = await recent(userId);
    if (holdFirst && reads === 1) await held;
    return then;
  };
  return { answer, reads: () => reads };
}

/** U0EDITOR opens App Home, signed. */
async function open(r: BotRig, ts: string) {
  const opened = await postSignedJson(
    r.url,
    SIGNING_SECRET,
    eventBody({ type: 'app_home_opened', user: 'U0EDITOR', channel: 'D0001', tab: 'home', event_ts: ts }),
  );
  expect(opened.status).toBe(200);
}

describe('App Home with a slow read', () => {
  it('shows a read that answered late in one more view, once it answers', async () => {
    const { r, report } = await homeRig();
    await report('The Late Read Gala');
    // The person's recent activity answers only when the test says so.
    const activity = activityReads(r, true);

    await open(r, '1.1');
    // Shown without it while it is held: the events and the budget do not wait for it.
    const first = await r.slack.waitFor(() => published(r).find((view) => view.includes('Upcoming events')));
    expect(first).toContain('requests left in this window');
    expect(first).not.toContain('The Late Read Gala');

    activity.answer();
    await expect.poll(() => published(r).at(-1)).toContain('The Late Read Gala');
  });

  it('does not show its late reads over a view published since (another open, a button)', async () => {
    const { r, report } = await homeRig();
    await report('The First Gala');
    // The first open's activity read answers, as it stood then, only when the test says so.
    const activity = activityReads(r, true);
    await open(r, '2.1');
    await r.slack.waitFor(() => published(r).find((view) => view.includes('Upcoming events')));
    // Opened again after a second report: this view is the newer one.
    await report('The Second Gala');
    await open(r, '2.2');
    await r.slack.waitFor(() => published(r).find((view) => view.includes('The Second Gala')));
    activity.answer();
    await expect.poll(() => r.bot.work.running).toBe(0);
    // The first open's late view was refused (it named the view it replaced, no longer shown).
    const refused = r.slack.calls.filter((call) => call.method === 'views.publish' && call.error === 'hash_conflict');
    expect(refused).toHaveLength(1);
    const shown = r.slack.calls.filter((call) => call.method === 'views.publish' && call.error === undefined).at(-1);
    expect(JSON.stringify(shown?.args.view)).toContain('The Second Gala');
  });

  it('does not publish again when every read answered in time', async () => {
    const { r } = await homeRig();
    const activity = activityReads(r, false);
    await open(r, '1.2');
    await r.slack.waitFor(() => published(r).find((view) => view.includes('Upcoming events')));
    // Every listener's run is tracked work: none left means this open has published all it will.
    await expect.poll(() => r.bot.work.running).toBe(0);
    // One read for the whole open, however many views it publishes; and one view, the catalog being
    // in memory and every read answered.
    expect(activity.reads()).toBe(1);
    expect(published(r)).toHaveLength(1);
  });
});
