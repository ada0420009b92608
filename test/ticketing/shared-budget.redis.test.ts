import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { startSimulator } from '../../src/simulator/server.js';
import { openStore } from '../../src/store/open-store.js';
import type { BudgetPermit, Priority } from '../../src/ticketing/budget.js';
import { buildTicketing } from '../../src/ticketing/build-ticketing.js';
import { createTicketingClient } from '../../src/ticketing/create-client.js';
import { type ScriptRunner, SharedBudget, type SharedBudgetOptions } from '../../src/ticketing/shared-budget.js';
import { type Clock, systemClock } from '../../src/time/clock.js';
import { useRedis } from '../helpers/redis-server.js';
import { limits, runPool } from '../helpers/ticketing.js';
import { resolvedWithin, sleep, waitFor } from '../helpers/wait-for.js';

const redis = useRedis();
let counter = 0;

/** Admission attempts Redis refused, per budget, so a test can wait for a request to be waiting there. */
const refusals = new WeakMap<SharedBudget, { count: number }>();
const refused = (budget: SharedBudget) => refusals.get(budget)?.count ?? 0;

/** The admission script's answer: {1, grant} when it grants, {0, wait} when it refuses. */
const admission = (answer: unknown): 'granted' | 'refused' | undefined =>
  Array.isArray(answer) && answer.length === 2 ? (answer[0] === 1 ? 'granted' : 'refused') : undefined;

/**
 * Budgets of `count` replicas on one Redis, each with its own connection, under a fresh key; replica
 * `i` reads `clocks[i]` when given (a clock that is off).
 */
async function replicas(
  count: number,
  options: Omit<SharedBudgetOptions, 'run' | 'clock'>,
  clocks: Clock[] = [],
): Promise<SharedBudget[]> {
  const key = `test:budget:${++counter}`;
  const budgets: SharedBudget[] = [];
  for (let i = 0; i < count; i += 1) {
    const store = await openStore(redis.url);
    redis.closers.push(() => store.close());
    const shared = store.shared;
    if (!shared) throw new Error('a Redis store shares its Redis');
    const clock = clocks[i];
    const seen = { count: 0 };
    const run: ScriptRunner = async (script, keys, args) => {
      const answer = await shared.runScript(script, keys, args);
      if (admission(answer) === 'refused') seen.count += 1;
      return answer;
    };
    const budget = new SharedBudget({ key, run, pollMs: 10, ...options, ...(clock ? { clock } : {}) });
    refusals.set(budget, seen);
    budgets.push(budget);
  }
  return budgets;
}

/** Two replicas' budgets. */
async function pair(options: Omit<SharedBudgetOptions, 'run'>): Promise<[SharedBudget, SharedBudget]> {
  const [a, b] = await replicas(2, options);
  if (!a || !b) throw new Error('two budgets expected');
  return [a, b];
}

const observation = (remaining: number, limit = 10, resetInMs = 60_000) => ({
  limit,
  remaining,
  resetAt: Date.now() + resetInMs,
  observedAt: Date.now(),
});

/** A replica's clock `offsetMs` off (ahead when positive). */
const clockOff = (offsetMs: number): Clock => ({ now: () => Date.now() + offsetMs });

/** Headers as a replica reading `clock` records them: its instants are in its own clock. */
const observedBy = (clock: Clock, remaining: number, resetInMs: number, limit = 10) => {
  const now = clock.now();
  return { limit, remaining, resetAt: now + resetInMs, observedAt: now };
};

/**
 * Two replicas of which one's clock is `offsetMs` off the other's: `ahead` and `behind` by their
 * clocks, whichever of them is the one that is off.
 */
async function skewedPair(offsetMs: number, options: Omit<SharedBudgetOptions, 'run' | 'clock'>) {
  const skewed = clockOff(offsetMs);
  const right = clockOff(0);
  const [off, ok] = await replicas(2, options, [skewed, right]);
  if (!off || !ok) throw new Error('two budgets expected');
  return offsetMs > 0
    ? { ahead: off, aheadClock: skewed, behind: ok, behindClock: right }
    : { ahead: ok, aheadClock: right, behind: off, behindClock: skewed };
}

/** Waits (up to 2 s) for `expected` of the permits, then `quietMs` more; how many have been granted by then. */
async function grantedThenQuiet(promises: Promise<BudgetPermit>[], expected: number, quietMs = 150): Promise<number> {
  let granted = 0;
  for (const p of promises)
    void p.then(
      () => {
        granted += 1;
      },
      () => undefined,
    );
  await waitFor(() => granted >= expected, { timeoutMs: 2_000, what: `${expected} permits` }).catch(() => undefined);
  // That no more come is an absence, nothing to poll for: wall time (the budget keeps Redis's TIME).
  await sleep(quietMs);
  return granted;
}

/** How many of the permits have been granted within `ms`. */
async function grantedWithin(promises: Promise<BudgetPermit>[], ms = 150): Promise<number> {
  return (await resolvedWithin(promises, ms)).filter(Boolean).length;
}

describe('SharedBudget (real redis-server)', () => {
  it('sends one probe across all replicas and waits for its headers before any replica sends more', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 60_000 });
    const probe = await a.acquire('interactive');
    const others = [b.acquire('interactive'), a.acquire('interactive')];
    expect(await grantedWithin(others)).toBe(0);
    probe.settle({ kind: 'answered', observation: observation(9) });
    expect(await grantedWithin(others, 2_000)).toBe(2);
  });

  it('spends one allowance between replicas, as the headers say', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 60_000, reserveRatio: 0 });
    (await a.acquire('interactive')).settle({ kind: 'answered', observation: observation(6) });
    const asks = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquire('interactive'));
    expect(await grantedThenQuiet(asks, 6)).toBe(6);
    expect(await b.snapshot()).toMatchObject({ remaining: 0, inFlight: 6 });
  });

  it('keeps the reserve from background work on every replica but not from people', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 60_000, reserveRatio: 0.2 });
    (await a.acquire('interactive')).settle({ kind: 'answered', observation: observation(9) });
    const background = Array.from({ length: 9 }, (_, i) => (i % 2 ? a : b).acquire('background'));
    expect(await grantedThenQuiet(background, 7)).toBe(7);
    const people = [b.acquire('interactive'), a.acquire('interactive')];
    expect(await grantedWithin(people, 2_000)).toBe(2);
  });

  it('serves a person waiting on one replica before background work waiting on another', async () => {
    // The turn is a second away: time for both to be waiting before it on a busy machine.
    const [a, b] = await pair({ limit: 10, windowMs: 1_500, reserveRatio: 0 });
    (await a.acquire('interactive')).settle({ kind: 'answered', observation: observation(0, 10, 1_000) });
    const order: string[] = [];
    const refusedBefore = refused(a);
    const background = a.acquire('background').then((permit) => {
      order.push('background');
      return permit;
    });
    await waitFor(() => refused(a) > refusedBefore, { what: 'the background request to be waiting' });
    const person = b.acquire('interactive').then((permit) => {
      order.push('person');
      return permit;
    });
    const first = await Promise.race([person, background]);
    first.settle({ kind: 'answered', observation: observation(9, 10, 400) });
    await Promise.all([person, background]);
    expect(order).toEqual(['person', 'background']);
  });

  it('still owes the probe after the turn when a late answer describes the window that ended', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 300, reserveRatio: 0 });
    const probe = await a.acquire('interactive');
    const oldReset = Date.now() + 200;
    probe.settle({
      kind: 'answered',
      observation: { limit: 10, remaining: 9, resetAt: oldReset, observedAt: Date.now() },
    });
    const late = await b.acquire('interactive'); // sent in the old window, answered after the turn
    await sleep(250); // past the turn by the Redis server's clock
    const next = [a.acquire('interactive'), b.acquire('interactive'), a.acquire('interactive')];
    late.settle({
      kind: 'answered',
      observation: { limit: 10, remaining: 8, resetAt: oldReset, observedAt: oldReset - 50 },
    });
    // Only the new window's probe may go: the server may not have turned its window yet.
    expect(await grantedThenQuiet(next, 1)).toBe(1);
  });

  it('never counts a request twice or not at all when answers come back out of order', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 60_000, reserveRatio: 0 });
    (await a.acquire('interactive')).settle({ kind: 'answered', observation: observation(9) });
    const second = await a.acquire('interactive');
    const third = await b.acquire('interactive');
    // The third reached the service first (8 left) but is settled last; the second came after it (7 left).
    second.settle({ kind: 'answered', observation: observation(7) });
    await waitFor(async () => (await a.snapshot()).inFlight === 1, { what: 'the second settled' });
    third.settle({ kind: 'answered', observation: observation(8) });
    await waitFor(async () => (await a.snapshot()).inFlight === 0, { what: 'the third settled' });
    // Three sent of ten: seven left, not the eight the newest-granted answer alone would say.
    const asks = Array.from({ length: 9 }, (_, i) => (i % 2 ? a : b).acquire('interactive'));
    expect(await grantedThenQuiet(asks, 7)).toBe(7);
  });

  it('lets background work go on every replica as soon as a waiting person gives up', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 400, reserveRatio: 0 });
    (await a.acquire('interactive')).settle({ kind: 'answered', observation: observation(0, 10, 300) });
    const person = new AbortController();
    const refusedBefore = refused(b);
    const waiting = b.acquire('interactive', { signal: person.signal });
    waiting.catch(() => undefined);
    await waitFor(() => refused(b) > refusedBefore, { what: 'the person to be waiting' });
    person.abort();
    // The window turns at 300 ms: the background probe goes then, not a waiting-period later.
    const started = Date.now();
    const background = await a.acquire('background');
    expect(Date.now() - started).toBeLessThan(600);
    background.settle({ kind: 'answered', observation: observation(9, 10, 400) });
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('shares a 429 pause with every replica', async () => {
    const [a, b] = await pair({ limit: 10, windowMs: 60_000 });
    (await a.acquire('interactive')).settle({ kind: 'rate-limited', waitMs: 150 });
    const started = Date.now();
    const permit = await b.acquire('interactive');
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    permit.settle({ kind: 'answered', observation: observation(5) });
    expect((await a.snapshot()).rateLimitedResponses).toBe(1);
  });

  it('stops counting a request whose replica died before settling it, once its lease ends', async () => {
    const [dead, alive] = await pair({ limit: 10, windowMs: 60_000, leaseMs: 1_000 });
    await dead.acquire('interactive'); // the probe, never settled: its replica was killed
    const waiting = alive.acquire('interactive');
    expect(await grantedWithin([waiting], 100)).toBe(0);
    expect(await grantedWithin([waiting], 2_000)).toBe(1);
  });

  it('as the bot builds it, holds replicas back after one died mid-request only as long as a request may take, not two windows', async () => {
    const sim = await startSimulator({ eventCount: 5 });
    const namespace = `died${++counter}`;
    const orgLimit = { limit: 180, windowMs: 60_000 };
    const replica = async (cutOffAfterGrant: boolean) => {
      const store = await openStore(redis.url, { namespace });
      redis.closers.push(() => store.close());
      const shared = store.shared;
      if (!shared) throw new Error('a Redis store shares its Redis');
      const seen = { granted: false, refused: 0 };
      // Dead to the budget once it has its grant: its settle never reaches Redis.
      const runScript: ScriptRunner = async (script, keys, args) => {
        if (seen.granted) throw new Error('this replica is gone');
        const answer = await shared.runScript(script, keys, args);
        if (admission(answer) === 'refused') seen.refused += 1;
        if (cutOffAfterGrant && admission(answer) === 'granted') seen.granted = true;
        return answer;
      };
      // Built as the bot builds it, with requests that give up after 1 s (one attempt: no retry
      // could reach the budget once the replica is gone).
      const client = await buildTicketing({
        apiUrl: sim.url,
        apiKey: sim.apiKeys[0] as string,
        limits: limits({ orgLimit }),
        shared: { ...shared, runScript },
        observer: { response: () => undefined, rateLimited: () => undefined },
        clock: systemClock,
        logger: silentLogger,
        timeouts: { deadlineMs: 1_000 },
        retry: { maxAttempts: 1 },
      });
      return { client, seen };
    };
    const dead = await replica(true);
    // It took the probe of an unknown window, and died before its answer was counted.
    expect((await dead.client.listEvents({ limit: 1 })).items).toHaveLength(1);
    const alive = await replica(false);
    const started = Date.now();
    expect((await alive.client.listEvents({ limit: 1 })).items).toHaveLength(1);
    // Held back (refused while the dead grant counted), for one and a half deadlines (1.5 s) after
    // the grant at most, not the two windows (2 minutes) it waited before.
    expect(alive.seen.refused).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(1_500 + 2_000);
    await dead.client.close();
    await alive.client.close();
    await sim.close();
  }, 20_000);

  it('keeps three clients of one organization within its budget at three times the demand: 0 x 429', async () => {
    const orgLimit = { limit: 30, windowMs: 300 };
    const sim = await startSimulator({ orgLimit, eventCount: 20, windowKind: 'sliding' });
    // Another key of the organization spends a third of the first window.
    const other = sim.apiKeys[1] as string;
    const budgets = await replicas(3, orgLimit);
    const clients = budgets.map((budget) =>
      createTicketingClient({
        apiUrl: sim.url,
        apiKey: sim.apiKeys[0] as string,
        limits: limits({ orgLimit }),
        budget,
        retry: { baseDelayMs: 5, maxDelayMs: 50 },
      }),
    );
    await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(`${sim.url}/v1/events?limit=1`, { headers: { 'service-api-key': other } }),
      ),
    );
    const started = Date.now();
    // Each client wants a whole window's worth: three times what the organization may send.
    await Promise.all(
      clients.map((client) =>
        runPool(orgLimit.limit, 8, () => client.listEvents({ limit: 1, priority: 'background' })),
      ),
    );
    const elapsed = Date.now() - started;
    expect(sim.stats().rateLimited).toBe(0);
    expect(sim.stats().requests).toBe(10 + 3 * orgLimit.limit);
    expect(sim.stats().mostInAnySpan.organization).toBeLessThanOrEqual(orgLimit.limit);
    // 100 requests at 30 per window cannot finish inside three windows.
    expect(elapsed).toBeGreaterThanOrEqual(3 * orgLimit.windowMs * 0.9);
    for (const client of clients) await client.close();
    await sim.close();
  });

  describe("on one clock, Redis's, whatever the replicas' clocks say (a clock 5 s off)", () => {
    const offsets = [
      ['ahead', 5_000],
      ['behind', -5_000],
    ] as const;

    it.each(offsets)(
      'keeps a person waiting on the replica behind ahead of background work on the one ahead (clock %s)',
      async (_, offsetMs) => {
        const { ahead, aheadClock, behind, behindClock } = await skewedPair(offsetMs, {
          limit: 10,
          windowMs: 1_500,
          reserveRatio: 0,
        });
        // The window is spent and turns in a second, by the headers the replica ahead read.
        (await ahead.acquire('interactive')).settle({
          kind: 'answered',
          observation: observedBy(aheadClock, 0, 1_000),
        });
        const order: Priority[] = [];
        const refusedBefore = refused(behind);
        const person = behind.acquire('interactive').then((permit) => {
          order.push('interactive');
          return permit;
        });
        await waitFor(() => refused(behind) > refusedBefore, { what: 'the person to be waiting' });
        const background = ahead.acquire('background').then((permit) => {
          order.push('background');
          return permit;
        });
        // Nothing goes before the turn; at the turn the person's replica sends the probe.
        expect(await grantedWithin([person, background], 150)).toBe(0);
        expect(await grantedWithin([person], 2_000)).toBe(1);
        (await person).settle({ kind: 'answered', observation: observedBy(behindClock, 9, 400) });
        expect(await grantedWithin([background], 2_000)).toBe(1);
        expect(order).toEqual(['interactive', 'background']);
        (await background).settle({ kind: 'answered', observation: observedBy(aheadClock, 8, 400) });
      },
    );

    it.each(offsets)(
      'keeps the reserve from background work on the replica ahead until the window turns (clock %s)',
      async (_, offsetMs) => {
        const { ahead, aheadClock, behind, behindClock } = await skewedPair(offsetMs, {
          limit: 10,
          windowMs: 60_000,
          reserveRatio: 0.2,
        });
        // Only the reserve is left, for 2 s more, by the headers the replica behind read.
        (await behind.acquire('interactive')).settle({
          kind: 'answered',
          observation: observedBy(behindClock, 2, 2_000),
        });
        const background = [ahead.acquire('background'), behind.acquire('background')];
        expect(await grantedWithin(background)).toBe(0);
        // Each replica reports the turn in its own clock, and the same wait.
        for (const [budget, clock] of [
          [ahead, aheadClock],
          [behind, behindClock],
        ] as const) {
          const { resetAt, lastObservation } = await budget.snapshot();
          for (const at of [resetAt, lastObservation?.resetAt]) {
            expect((at ?? 0) - clock.now()).toBeGreaterThan(1_000);
            expect((at ?? 0) - clock.now()).toBeLessThanOrEqual(2_000);
          }
          expect(await budget.estimatedWaitMs('background')).toBeGreaterThan(1_000);
          expect(await budget.estimatedWaitMs('background')).toBeLessThanOrEqual(2_000);
        }
        // People still have the reserve, on either replica.
        expect(await grantedWithin([ahead.acquire('interactive'), behind.acquire('interactive')], 2_000)).toBe(2);
      },
    );

    it.each(offsets)(
      'counts a request in flight for its whole lease whichever replica granted it (clock %s)',
      async (_, offsetMs) => {
        const [off, right] = await replicas(2, { limit: 10, windowMs: 60_000, leaseMs: 1_000 }, [clockOff(offsetMs)]);
        if (!off || !right) throw new Error('two budgets expected');
        await off.acquire('interactive'); // the probe, never settled: its replica was killed
        const waiting = right.acquire('interactive');
        expect(await grantedWithin([waiting], 100)).toBe(0);
        expect(await grantedWithin([waiting], 2_000)).toBe(1);
      },
    );
  });
});
