import { beforeAll, describe, expect, it } from 'vitest';
import { ReportSlots } from '../../../src/reports/queue/report-slots.js';
import { openStore } from '../../../src/store/open-store.js';
import type { ScriptRunner } from '../../../src/ticketing/shared-budget.js';
import { useRedis } from '../../helpers/redis-server.js';
import { sleep } from '../../helpers/wait-for.js';

const redis = useRedis();
let run: ScriptRunner;
let counter = 0;

beforeAll(async () => {
  const store = await openStore(`${redis.url}/3`);
  redis.closers.push(() => store.close());
  if (!store.shared) throw new Error('a redis:// store is shared');
  run = store.shared.runScript;
});

/** Slots on fresh keys: 2 a window of 1 s unless told. */
const slots = (options: { limit?: number; windowMs?: number; leaseMs?: number } = {}) =>
  new ReportSlots({ run, key: `test:slots:${++counter}`, limit: 2, windowMs: 500, leaseMs: 1_500, ...options });

// Wall-clock waits: the slots' windows, leases and pauses run on the Redis server's clock (`TIME`).
/** Redis's clock against this process's, read to the millisecond each. */
const SLACK_MS = 2;
const slotOf = (grant: Awaited<ReturnType<ReportSlots['take']>>) => {
  if (!('slot' in grant)) throw new Error(`no slot: wait ${grant.waitMs} ms`);
  return grant.slot;
};

describe('ReportSlots (a rolling report limit in Redis)', () => {
  it('frees a slot one window after its call finished, not after it was taken', async () => {
    const limit = slots();
    const first = slotOf(await limit.take());
    slotOf(await limit.take());
    // Both calls still running: the next slot frees no sooner than a window from now.
    expect(await limit.take()).toMatchObject({ waitMs: expect.any(Number) });
    await sleep(200);
    // A window from the finish, less the time the two scripts took (a slot freed a window after it
    // was taken would leave 200 ms less): bounds on time that passed, not on time planned.
    const finishing = Date.now();
    await limit.finish(first);
    const wait = await limit.take();
    expect('waitMs' in wait && wait.waitMs).toBeGreaterThanOrEqual(500 - (Date.now() - finishing) - SLACK_MS);
    await sleep(550);
    slotOf(await limit.take());
  });

  it('frees the slot of a holder that never says its call finished (its replica died) when its lease ends', async () => {
    const limit = slots({ limit: 1, leaseMs: 600 });
    slotOf(await limit.take());
    const wait = await limit.take();
    expect('waitMs' in wait && wait.waitMs).toBeLessThanOrEqual(500);
    await sleep(650);
    slotOf(await limit.take());
  });

  it('keeps a renewed slot past its first lease while its call runs', async () => {
    const limit = slots({ limit: 1, leaseMs: 1_400 });
    const held = slotOf(await limit.take());
    // Read once the slot is taken: the look below is then surely past the first lease.
    const takenAt = Date.now();
    // Renewed half way (700 ms either side of each lease's end), then looked at past the first lease.
    await sleep(700);
    await limit.renew(held);
    await sleep(takenAt + 1_450 - Date.now());
    expect(await limit.take()).toMatchObject({ waitMs: expect.any(Number) });
  });

  it('makes every holder wait as long as a 429 said', async () => {
    const limit = slots({ limit: 3 });
    const held = slotOf(await limit.take());
    const finishing = Date.now();
    await limit.finish(held, 300);
    const wait = await limit.take();
    expect('waitMs' in wait && wait.waitMs).toBeGreaterThanOrEqual(300 - (Date.now() - finishing) - SLACK_MS);
    await sleep(350);
    slotOf(await limit.take());
  });

  it('takes the report headers as the truth: what they leave, less the calls still in flight, until their reset', async () => {
    const limit = slots({ limit: 3 });
    const answered = slotOf(await limit.take());
    slotOf(await limit.take());
    // Another key spent one: the answer to the first call says 1 left. The second call, in flight,
    // may not be in that count, so nothing is left for us until the reset.
    const now = Date.now();
    await limit.observe({ limit: 3, remaining: 1, resetAt: now + 350, observedAt: now }, now, answered);
    const wait = await limit.take();
    expect('waitMs' in wait && wait.waitMs).toBeGreaterThanOrEqual(350 - (Date.now() - now) - SLACK_MS);
    await sleep(400);
    slotOf(await limit.take());
  });

  it('never lets an older answer replace a newer one', async () => {
    const limit = slots({ limit: 3 });
    const now = Date.now();
    await limit.observe({ limit: 3, remaining: 3, resetAt: now + 800, observedAt: now }, now);
    await limit.observe({ limit: 3, remaining: 0, resetAt: now - 100 + 800, observedAt: now - 100 }, now);
    slotOf(await limit.take());
  });
});

describe('the watches’ share while people wait', () => {
  it('owes the watches no second slot until a person has taken one since, however long the wait', async () => {
    const share = new ReportSlots({
      run,
      key: `test:slots:${++counter}`,
      limit: 5,
      windowMs: 100,
      leaseMs: 1_500,
      watchShare: { everyWindows: 1, holdMs: 0 },
    });
    expect(await share.takeSpare(true)).toBeDefined();
    // Three share periods pass with people waiting and none of them handed a slot (a slow queue).
    await sleep(350);
    expect(await share.takeSpare(true)).toBeUndefined();
    slotOf(await share.take());
    expect(await share.takeSpare(true)).toBeDefined();
    // With nobody waiting, a spare slot is a spare slot.
    expect(await share.takeSpare(false)).toBeDefined();
  });
});
