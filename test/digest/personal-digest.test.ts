import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DigestRunning } from '../../src/digest/digest-runner.js';
import { DigestScheduler } from '../../src/digest/digest-scheduler.js';
import { DigestService } from '../../src/digest/digest-service.js';
import { newSubscription, optionsOf, subscriptionSchema } from '../../src/digest/subscription.js';
import { SubscriptionStore } from '../../src/digest/subscription-store.js';
import { silentLogger } from '../../src/logger.js';
import {
  DIGEST_HOME_OFF,
  DIGEST_HOME_ON,
  DIGEST_HOME_TIME,
  digestNowMessage,
  digestStatusMessage,
  personalDigestHomeBlocks,
} from '../../src/render/digest-blocks.js';
import { md } from '../../src/render/mrkdwn.js';
import { parseEventsCommand } from '../../src/slack/listeners/commands/command-parser.js';
import { openStore } from '../../src/store/open-store.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('parseEventsCommand: digest --me', () => {
  it('reads --me anywhere, for every action, and leaves channel digests as they were', () => {
    expect(parseEventsCommand('digest --me')).toEqual({ kind: 'digest-status', personal: true });
    expect(parseEventsCommand('digest off --me')).toEqual({ kind: 'digest-off', personal: true });
    expect(parseEventsCommand('digest --ME now')).toEqual({ kind: 'digest-now', personal: true });
    expect(parseEventsCommand('digest status')).toEqual({ kind: 'digest-status' });
    expect(parseEventsCommand('digest on --me')).toEqual({
      kind: 'digest-on',
      personal: true,
      options: { time: undefined, timezone: undefined, days: 1, skipEmpty: false },
    });
    expect(
      parseEventsCommand('digest on 7:30 Europe/Berlin --days 3 --match jazz --me night --weekdays mon-fri'),
    ).toEqual({
      kind: 'digest-on',
      personal: true,
      options: {
        time: '07:30',
        timezone: 'Europe/Berlin',
        days: 3,
        skipEmpty: false,
        match: 'jazz night',
        weekdays: [1, 2, 3, 4, 5],
      },
    });
  });

  it('refuses extra words and bad options with --me as without', () => {
    expect(parseEventsCommand('digest off --me please')).toMatchObject({ kind: 'invalid' });
    expect(JSON.stringify(parseEventsCommand('digest status --me x'))).toContain('takes no more words than --me');
    expect(JSON.stringify(parseEventsCommand('digest on --me 25:00'))).toContain('is not a time of day');
    expect(JSON.stringify(parseEventsCommand('digest on --me --days 30'))).toContain('[--me]');
  });
});

describe('a personal subscription', () => {
  const asked = { time: undefined, timezone: undefined, days: 1, skipEmpty: false };

  it('is keyed by the person wherever they asked, at 09:00 in their Slack zone by default', () => {
    const { subscription, zoneSource } = newSubscription(asked, {
      channelId: 'C0ANYWHERE',
      userId: 'U0ALICE',
      personal: true,
      personZone: 'Asia/Kolkata',
      now: Date.UTC(2026, 10, 22),
    });
    expect(subscription).toMatchObject({
      channelId: 'U0ALICE',
      personal: true,
      time: '09:00',
      timezone: 'Asia/Kolkata',
      createdBy: 'U0ALICE',
    });
    expect(zoneSource).toBe('person');
    expect(subscriptionSchema.parse(subscription)).toEqual(subscription);
  });

  it('loads records stored before personal digests existed as channel digests', () => {
    const old = {
      channelId: 'C1',
      time: '09:00',
      timezone: 'UTC',
      days: 1,
      skipEmpty: false,
      createdBy: 'U1',
      createdAt: '2026-11-01T00:00:00Z',
      status: 'active',
    };
    expect(subscriptionSchema.parse(old)).toEqual(old);
    expect(subscriptionSchema.safeParse({ ...old, personal: 'yes' }).success).toBe(false);
  });

  it('turns on again with the settings it had (App Home after a pause)', () => {
    const { subscription } = newSubscription(
      { time: '06:45', timezone: 'Europe/Oslo', days: 3, skipEmpty: true, match: 'jazz', weekdays: [6, 7] },
      { channelId: 'C1', userId: 'U0ALICE', personal: true, personZone: undefined, now: 0 },
    );
    const again = newSubscription(optionsOf({ ...subscription, status: 'failing', failure: 'user_not_found' }), {
      channelId: 'D0ALICE',
      userId: 'U0ALICE',
      personal: true,
      personZone: undefined,
      now: 0,
    }).subscription;
    expect(again).toEqual(subscription);
  });
});

describe('DigestService for personal digests', () => {
  async function service() {
    const dir = await mkdtemp(join(tmpdir(), 'eventops-personal-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = await openStore(`sqlite://${join(dir, 'eventops.sqlite')}`);
    cleanup.push(() => store.close());
    const clock = { now: () => Date.UTC(2026, 11, 1, 12, 0) };
    const runner = {
      fire: async () => ({ kind: 'no-subscription' }),
      catchUp: async () => [],
      stop: () => undefined,
    } as unknown as DigestRunning;
    const scheduler = new DigestScheduler({ runner, logger: silentLogger, clock });
    cleanup.push(async () => scheduler.stop());
    const subscriptions = new SubscriptionStore(store.keyValue, silentLogger);
    return {
      scheduler,
      digests: new DigestService({ store: subscriptions, runner, scheduler, clock, logger: silentLogger }),
    };
  }
  const turnOn = (
    digests: DigestService,
    announce: () => Promise<void>,
    personZone = async (): Promise<string | undefined> => 'America/New_York',
  ) =>
    digests.turnOn({
      options: { time: undefined, timezone: undefined, days: 1, skipEmpty: false },
      channelId: 'C0WHERE',
      userId: 'U0ALICE',
      personal: true,
      personZone,
      announce,
    });

  it('DMs the person before saving, and saves nothing when the DM is refused', async () => {
    const { digests } = await service();
    const refusal = Object.assign(new Error('An API error occurred: cannot_dm_bot'), {
      data: { error: 'cannot_dm_bot' },
    });
    expect(
      await turnOn(digests, async () => {
        throw refusal;
      }),
    ).toEqual({ kind: 'refused', error: refusal });
    expect(await digests.status('U0ALICE')).toBeUndefined();

    const announced: unknown[] = [];
    const on = await turnOn(digests, async () => {
      announced.push(await digests.status('U0ALICE'));
    });
    expect(on).toMatchObject({
      kind: 'on',
      zoneSource: 'person',
      subscription: { channelId: 'U0ALICE', personal: true, time: '09:00', timezone: 'America/New_York' },
      next: { date: '2026-12-01' },
    });
    expect(announced).toEqual([undefined]);
    expect(await digests.status('U0ALICE')).toMatchObject({ subscription: { personal: true } });
  });

  it('moves the time of day and its schedule, refuses a time that is not one, and says when there is no digest', async () => {
    const { digests, scheduler } = await service();
    expect(await digests.changeTime('U0ALICE', '07:15')).toBeUndefined();
    await turnOn(
      digests,
      async () => undefined,
      async () => 'Asia/Kolkata',
    );
    const moved = await digests.changeTime('U0ALICE', '07:15');
    expect(moved?.subscription).toMatchObject({ time: '07:15', timezone: 'Asia/Kolkata', personal: true });
    // 12:00 UTC is 17:30 in Kolkata: the next 07:15 there is tomorrow's, 01:45 UTC.
    expect(moved?.next).toEqual({ date: '2026-12-02', at: Date.UTC(2026, 11, 2, 1, 45) });
    expect(scheduler.nextRuns('U0ALICE', 1)[0]?.toISOString()).toMatch(/T01:45:00\.000Z$/);
    await expect(digests.changeTime('U0ALICE', '25:99')).rejects.toThrow(RangeError);
    expect((await digests.status('U0ALICE'))?.subscription.time).toBe('07:15');
  });
});

describe('personal digest words', () => {
  const mine = {
    channelId: 'U0ALICE',
    personal: true as const,
    time: '07:05',
    timezone: 'Europe/Berlin',
    days: 1,
    skipEmpty: false,
    createdBy: 'U0ALICE',
    createdAt: '2026-11-22T00:00:00Z',
    status: 'active' as const,
    nextAt: Date.UTC(2026, 10, 23, 6, 5),
  };

  it('status --me speaks of the DM, and of a pause as "I could not DM you"', () => {
    const text = JSON.stringify(digestStatusMessage(mine).blocks);
    expect(text).toContain('Your daily digest, in your DM with me');
    expect(text).not.toContain('Set up by');
    const paused = JSON.stringify(
      digestStatusMessage({ ...mine, status: 'failing', failure: 'user_not_found' }).blocks,
    );
    expect(paused).toContain('*Paused*: I could not DM you (user_not_found)');
  });

  it('now --me says the DM went (or was already sent), and what a refusal did', () => {
    const now = Date.UTC(2026, 10, 23, 6, 5);
    expect(digestNowMessage({ kind: 'sent', date: '2026-11-23', events: 2 }, now, undefined, true).text).toBe(
      "Sent today's digest to your DM.",
    );
    expect(digestNowMessage({ kind: 'already-sent', date: '2026-11-23' }, now, undefined, true).text).toBe(
      "Today's digest was already sent to your DM.",
    );
    expect(
      digestNowMessage({ kind: 'channel-failing', date: '2026-11-23', reason: 'cannot_dm_bot' }, now, undefined, true)
        .text,
    ).toContain('I could not DM you (cannot_dm_bot), so your digest is paused');
  });

  it('App Home shows Turn on when off; Turn off and the time picker at its time when on; Turn on again when paused', () => {
    const off = JSON.stringify(personalDigestHomeBlocks({ digest: undefined }));
    expect(off).toContain(DIGEST_HOME_ON);
    expect(off).not.toContain(DIGEST_HOME_TIME);
    const on = personalDigestHomeBlocks({ digest: { ...mine, time: '7:05' } });
    expect(JSON.stringify(on)).toContain(DIGEST_HOME_OFF);
    expect(on.flatMap((block) => ('accessory' in block && block.accessory ? [block.accessory] : []))).toContainEqual({
      type: 'timepicker',
      action_id: DIGEST_HOME_TIME,
      initial_time: '07:05',
    });
    const paused = JSON.stringify(
      personalDigestHomeBlocks({
        digest: { ...mine, status: 'failing', failure: 'user_not_found' },
        notice: md`nothing to see`,
      }),
    );
    expect(paused).toContain('Turn on again');
    expect(paused).toContain('I could not DM you (user_not_found)');
    expect(paused).toContain(':warning: nothing to see');
  });
});
