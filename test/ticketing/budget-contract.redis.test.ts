import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../src/logger.js';
import { openStore } from '../../src/store/open-store.js';
import { type BudgetPermit, type Priority, type RequestBudget, WindowBudget } from '../../src/ticketing/budget.js';
import { type ScriptRunner, SharedBudget } from '../../src/ticketing/shared-budget.js';
import { useRedis } from '../helpers/redis-server.js';
import { runPool, startRig } from '../helpers/ticketing.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

/*
 * The organization budget's rules, written once and run against both budgets: `WindowBudget` (in
 * process) and `SharedBudget` (Lua in a real redis-server). SharedBudget reads Redis's `TIME`, which
 * no injected clock can move, so both run on the real clock with windows and resets of a few hundred
 * ms at most; the instants in the headers are the ones the service would send, `Date.now()`-based.
 * What only replicas can show (one allowance across processes, leases, clock skew) lives in
 * shared-budget.test.ts; what only an injected clock can show, in budget.test.ts.
 */

interface BudgetOptions {
  limit: number;
  windowMs: number;
  reserveRatio?: number;
  logger?: Logger;
}

const redis = useRedis();
let run: ScriptRunner | undefined;
let keys = 0;
beforeAll(async () => {
  const store = await openStore(redis.url);
  redis.closers.push(() => store.close());
  run = store.shared?.runScript;
});

const budgets: [string, (options: BudgetOptions) => RequestBudget][] = [
  ['WindowBudget (in process)', (options) => new WindowBudget(options)],
  [
    'SharedBudget (Lua on a real redis-server)',
    (options) => {
      if (!run) throw new Error('a Redis store shares its Redis');
      return new SharedBudget({ key: `test:budget-contract:${++keys}`, run, pollMs: 10, ...options });
    },
  ],
];

/** The headers of an answer: `remaining` of `limit` left, the window resetting in `resetInMs`. */
const headers = (remaining: number, { limit = 10, resetInMs = 60_000 } = {}) => {
  const now = Date.now();
  return { limit, remaining, resetAt: now + resetInMs, observedAt: now };
};

const answered = (remaining: number, options: { limit?: number; resetInMs?: number } = {}) =>
  ({ kind: 'answered', observation: headers(remaining, options) }) as const;

/** `count` requests of `priority` asking at once; `permits` fills in grant order. */
function asking(budget: RequestBudget, count: number, priority: Priority = 'interactive') {
  const permits: BudgetPermit[] = [];
  const all = Array.from({ length: count }, () => budget.acquire(priority).then((permit) => permits.push(permit)));
  // Whoever is still waiting at the end hears Redis close: not a failure of the test.
  for (const each of all) each.catch(() => undefined);
  return permits;
}

/**
 * How many of `permits` have arrived after `ms`: a check that nothing more is granted has to wait a
 * little, on the wall clock (SharedBudget's is the Redis server's).
 */
async function grantedAfter(permits: BudgetPermit[], ms: number): Promise<number> {
  await sleep(ms);
  return permits.length;
}

describe.each(budgets)('budget contract: %s', (_, makeBudget) => {
  describe('one probe first while the window is unknown', () => {
    it('sends one probe first and waits for its headers before sending more', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000 });
      const probe = await budget.acquire('interactive');
      const others = asking(budget, 2);
      expect(await grantedAfter(others, 60)).toBe(0);
      probe.settle(answered(9));
      await expect.poll(() => others.length).toBe(2);
    });

    it('counts on its own after an answer without headers', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000 });
      (await budget.acquire('interactive')).settle({ kind: 'answered', observation: undefined });
      const others = asking(budget, 3);
      await expect.poll(() => others.length).toBe(3);
      expect(await budget.snapshot()).toMatchObject({ remaining: 6, inFlight: 3 });
    });

    it('probes again after a request it could not read, which stays counted', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000 });
      (await budget.acquire('interactive')).settle({ kind: 'unobserved' });
      const others = asking(budget, 2);
      expect(await grantedAfter(others, 60)).toBe(1);
      expect(await budget.snapshot()).toMatchObject({ remaining: 8, inFlight: 1 });
    });
  });

  describe('the headers are the truth', () => {
    it('follows the server when another key spends the budget', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000 });
      (await budget.acquire('interactive')).settle(answered(2));
      const waiting = asking(budget, 4);
      await expect.poll(() => waiting.length).toBe(2);
      expect(await grantedAfter(waiting, 60)).toBe(2);
      expect(await budget.snapshot()).toMatchObject({ remaining: 0, inFlight: 2, queued: { interactive: 2 } });
    });

    it('caps itself to a configured limit below the server limit', async () => {
      const budget = makeBudget({ limit: 5, windowMs: 60_000 });
      (await budget.acquire('interactive')).settle(answered(179, { limit: 180 }));
      await expect.poll(async () => (await budget.snapshot()).inFlight).toBe(0);
      expect(await budget.snapshot()).toMatchObject({ limit: 5, remaining: 4 });
    });

    it('caps an absurd X-RateLimit-Reset (epoch seconds read as ms) at one window and logs it once', async () => {
      const lines: string[] = [];
      const logger = createLogger({ write: (line) => lines.push(line) });
      const budget = makeBudget({ limit: 10, windowMs: 1_000, logger });
      const epochSeconds = Math.ceil(Date.UTC(2026, 10, 22) / 1000); // ~21 days when read as ms
      for (let i = 0; i < 3; i += 1) {
        (await budget.acquire('interactive')).settle(answered(5 - i, { resetInMs: epochSeconds }));
      }
      await expect.poll(async () => (await budget.snapshot()).inFlight).toBe(0);
      const { resetAt } = await budget.snapshot();
      expect((resetAt ?? 0) - Date.now()).toBeGreaterThan(500);
      expect((resetAt ?? 0) - Date.now()).toBeLessThanOrEqual(1_000);
      expect(await budget.estimatedWaitMs('interactive')).toBe(0);
      expect(lines.filter((line) => line.includes('X-RateLimit-Reset'))).toHaveLength(1);
    });
  });

  describe('the reserve and priorities', () => {
    it('keeps the reserve from background work but not from people', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000, reserveRatio: 0.2 });
      (await budget.acquire('interactive')).settle(answered(9));
      const background = asking(budget, 9, 'background');
      await expect.poll(() => background.length).toBe(7);
      expect(await grantedAfter(background, 60)).toBe(7);
      expect(await budget.snapshot()).toMatchObject({ remaining: 2, reserve: 2, queued: { background: 2 } });
      expect(await budget.estimatedWaitMs('background')).toBeGreaterThan(50_000);
      expect(await budget.estimatedWaitMs('interactive')).toBe(0);
      const people = asking(budget, 2);
      await expect.poll(() => people.length).toBe(2);
      expect((await budget.snapshot()).remaining).toBe(0);
    });

    it('serves a person who asked after background work first when the window turns', async () => {
      // The turn is a second away: time for the background work and then the person to queue
      // behind it on a busy machine (at 250 ms, a late person once found the probe gone).
      const budget = makeBudget({ limit: 10, windowMs: 1_500, reserveRatio: 0 });
      (await budget.acquire('interactive')).settle(answered(0, { resetInMs: 1_000 }));
      const order: Priority[] = [];
      const background = budget.acquire('background').then((permit) => {
        order.push('background');
        return permit;
      });
      await waitFor(async () => (await budget.snapshot()).queued.background === 1, { what: 'background work waiting' });
      const person = budget.acquire('interactive').then((permit) => {
        order.push('interactive');
        return permit;
      });
      // The probe after the turn is the person's; background work waits for its headers.
      (await person).settle(answered(9, { resetInMs: 400 }));
      (await background).settle(answered(8, { resetInMs: 400 }));
      expect(order).toEqual(['interactive', 'background']);
    });

    it('rejects a cancelled wait and forgets it', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000 });
      await budget.acquire('interactive');
      const controller = new AbortController();
      const waiting = budget.acquire('background', { signal: controller.signal });
      controller.abort();
      await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
      expect((await budget.snapshot()).queued.background).toBe(0);
    });
  });

  describe('a 429', () => {
    it('pauses everyone for the wait it was told, then sends one probe first', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000 });
      // A second's pause: the looks below take a few ms each, and a busy machine may stall them.
      (await budget.acquire('interactive')).settle({ kind: 'rate-limited', waitMs: 1_000 });
      await expect.poll(async () => (await budget.snapshot()).rateLimitedResponses).toBe(1);
      const { pausedUntil } = await budget.snapshot();
      expect((pausedUntil ?? 0) - Date.now()).toBeGreaterThan(650);
      expect((pausedUntil ?? 0) - Date.now()).toBeLessThanOrEqual(1_000);
      expect(await budget.estimatedWaitMs('interactive')).toBeGreaterThan(500);
      const waiting = asking(budget, 2);
      expect(await grantedAfter(waiting, 100)).toBe(0);
      await expect.poll(() => waiting.length, { timeout: 2_000 }).toBe(1);
      expect(Date.now()).toBeGreaterThanOrEqual((pausedUntil ?? 0) - 5);
      expect(await grantedAfter(waiting, 60)).toBe(1);
      waiting[0]?.settle(answered(5));
      await expect.poll(() => waiting.length).toBe(2);
    });
  });

  describe('an idle gap', () => {
    it("follows the server's reset after an idle gap, not its own guess of a full window", async () => {
      const budget = makeBudget({ limit: 10, windowMs: 1_000 });
      (await budget.acquire('interactive')).settle(answered(9, { resetInMs: 50 }));
      // Idle while the server's window turns: wall time, as SharedBudget's clock is the Redis server's.
      await sleep(80);
      // Its own guess is now + 1 window; another key spent the server's window, which resets in 200 ms.
      (await budget.acquire('interactive')).settle(answered(1, { resetInMs: 200 }));
      const waiting = asking(budget, 5);
      await expect.poll(() => waiting.length).toBe(1);
      const { remaining, resetAt } = await budget.snapshot();
      expect(remaining).toBe(0);
      expect((resetAt ?? 0) - Date.now()).toBeLessThanOrEqual(200);
      waiting[0]?.settle(answered(0, { resetInMs: 150 }));
      // At the server's reset (not a second later) the next window's probe goes, and only it.
      await expect.poll(() => waiting.length, { timeout: 600 }).toBe(2);
      expect(await grantedAfter(waiting, 60)).toBe(2);
    });
  });

  describe('rolling windows', () => {
    it('adopts a newer answer that says more are left, as a rolling window lets old requests go', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 60_000, reserveRatio: 0 });
      (await budget.acquire('interactive')).settle(answered(1));
      // SharedBudget knows instants to the millisecond: an answer stored in the very millisecond a
      // request was granted counts as possibly after it, and the next adoption subtracts it too
      // (one too few, never too many). The next request is granted a few ms after the answer.
      await expect.poll(async () => (await budget.snapshot()).inFlight).toBe(0);
      await sleep(5); // a few ms of the Redis server's clock
      const waiting = asking(budget, 3);
      await expect.poll(() => waiting.length).toBe(1);
      expect(await grantedAfter(waiting, 60)).toBe(1);
      waiting[0]?.settle(answered(4));
      await expect.poll(() => waiting.length).toBe(3);
      expect((await budget.snapshot()).remaining).toBe(2);
    });

    it('after the window turns, sends one probe and lets only as many go as its headers say are back', async () => {
      const budget = makeBudget({ limit: 10, windowMs: 1_500, reserveRatio: 0 });
      (await budget.acquire('interactive')).settle(answered(0, { resetInMs: 1_000 }));
      const waiting = asking(budget, 3);
      expect(await grantedAfter(waiting, 100)).toBe(0);
      await expect.poll(() => waiting.length, { timeout: 1_500 }).toBe(1);
      expect(await grantedAfter(waiting, 30)).toBe(1);
      // A rolling window freed only its oldest request: one more now, the last at the next reset.
      waiting[0]?.settle(answered(1, { resetInMs: 400 }));
      await expect.poll(() => waiting.length).toBe(2);
      expect(await grantedAfter(waiting, 60)).toBe(2);
    });
  });

  it('meets three times the budget of a server counting a rolling window, with no 429', async () => {
    const orgLimit = { limit: 20, windowMs: 200 };
    const rig = await startRig({ orgLimit, windowKind: 'sliding', eventCount: 10 }, { budget: makeBudget(orgLimit) });
    try {
      await runPool(3 * orgLimit.limit, 12, () => rig.client.listEvents({ limit: 1 }));
      const stats = rig.sim.stats();
      expect(stats.requests).toBe(3 * orgLimit.limit);
      expect(stats.rateLimited).toBe(0);
      expect(stats.mostInAnySpan.organization).toBeLessThanOrEqual(orgLimit.limit);
    } finally {
      await rig.close();
    }
  });

  it('validates its options with messages that say what was given', () => {
    expect(() => makeBudget({ limit: 0, windowMs: 1 })).toThrow('limit must be a positive integer, got 0');
    expect(() => makeBudget({ limit: 1, windowMs: 1, reserveRatio: 1 })).toThrow(/reserveRatio/);
  });
});

/*
 * Where the two differ on purpose. Answers can come back in another order than their requests were
 * granted (other connections, other replicas). WindowBudget adopts the answer to the most recently
 * granted request as the window's count; SharedBudget, whose grants come from many replicas, also
 * subtracts the answers that arrived since that request was granted and keeps the least count this
 * window reported, so it never overestimates. Here the third request reached the service first (8
 * left) but is answered last, the second after it (7 left): three of ten are spent.
 */
describe('where the budgets differ: answers out of grant order', () => {
  it.each([
    ['WindowBudget trusts the newest grant and overestimates by one', 0, 8],
    ['SharedBudget counts every request once', 1, 7],
  ] as const)('%s', async (_, which, remaining) => {
    const makeBudget = budgets[which]?.[1];
    if (!makeBudget) throw new Error('two budgets expected');
    const budget = makeBudget({ limit: 10, windowMs: 60_000, reserveRatio: 0 });
    (await budget.acquire('interactive')).settle(answered(9));
    const second = await budget.acquire('interactive');
    const third = await budget.acquire('interactive');
    second.settle(answered(7));
    await expect.poll(async () => (await budget.snapshot()).inFlight).toBe(1);
    third.settle(answered(8));
    await expect.poll(async () => (await budget.snapshot()).inFlight).toBe(0);
    expect((await budget.snapshot()).remaining).toBe(remaining);
  });
});
