import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type BudgetPermit, WindowBudget } from '../../src/ticketing/budget.js';

const observation = (remaining: number, limit = 10) => ({
  limit,
  remaining,
  resetAt: Date.now() + 60_000,
  observedAt: Date.now(),
});

/** Resolves what has been granted so far without waiting for the rest. */
async function granted(promises: Promise<BudgetPermit>[]): Promise<number> {
  const states = await Promise.all(
    promises.map((p) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 10))])),
  );
  return states.filter(Boolean).length;
}

describe('WindowBudget', () => {
  it('sends one probe first and waits for its headers before sending more', async () => {
    const budget = new WindowBudget({ limit: 10, windowMs: 60_000 });
    const first = await budget.acquire('interactive');
    const others = [budget.acquire('interactive'), budget.acquire('interactive')];
    expect(await granted(others)).toBe(0);
    first.settle({ kind: 'answered', observation: observation(9) });
    expect(await granted(others)).toBe(2);
  });

  it('keeps the reserve from background work but not from people', async () => {
    const budget = new WindowBudget({ limit: 10, windowMs: 60_000, reserveRatio: 0.2 });
    (await budget.acquire('interactive')).settle({ kind: 'answered', observation: observation(9) });
    const background = Array.from({ length: 9 }, () => budget.acquire('background'));
    expect(await granted(background)).toBe(7);
    expect(budget.snapshotNow()).toMatchObject({ remaining: 2, reserve: 2, queued: { background: 2 } });
    const people = [budget.acquire('interactive'), budget.acquire('interactive')];
    expect(await granted(people)).toBe(2);
    expect(budget.snapshotNow().remaining).toBe(0);
  });

  it('follows the server when another key spends the budget', async () => {
    const budget = new WindowBudget({ limit: 10, windowMs: 60_000 });
    (await budget.acquire('interactive')).settle({ kind: 'answered', observation: observation(2) });
    const waiting = Array.from({ length: 4 }, () => budget.acquire('interactive'));
    expect(await granted(waiting)).toBe(2);
  });

  it('caps itself to a configured limit below the server limit', async () => {
    const budget = new WindowBudget({ limit: 5, windowMs: 60_000 });
    (await budget.acquire('interactive')).settle({ kind: 'answered', observation: observation(179, 180) });
    expect(budget.snapshotNow()).toMatchObject({ limit: 5, remaining: 4 });
  });

  it('rejects a cancelled wait and forgets it', async () => {
    const budget = new WindowBudget({ limit: 10, windowMs: 60_000 });
    await budget.acquire('interactive');
    const controller = new AbortController();
    const waiting = budget.acquire('background', { signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'cancelled' });
    expect(budget.snapshotNow().queued.background).toBe(0);
  });

  it('validates its options with messages that say what was given', () => {
    expect(() => new WindowBudget({ limit: 0, windowMs: 1 })).toThrow('limit must be a positive integer, got 0');
    expect(() => new WindowBudget({ limit: 1, windowMs: 1, reserveRatio: 1 })).toThrow(/reserveRatio/);
  });
});

describe('WindowBudget: the headers are the truth of where the window stands', () => {
  class TestClock {
    constructor(public time: number) {}
    now = () => this.time;
  }

  it('after an idle gap, follows a header whose reset is earlier than its own guess (no burst)', async () => {
    const clock = new TestClock(1_000_000);
    const budget = new WindowBudget({ limit: 10, windowMs: 1_000, clock });
    (await budget.acquire('interactive')).settle({
      kind: 'answered',
      observation: { limit: 10, remaining: 9, resetAt: clock.time + 1_000, observedAt: clock.time },
    });
    clock.time += 5_000; // idle for five windows
    const probe = await budget.acquire('interactive');
    // Another key spent the server's current window: 1 left, resetting in 300 ms.
    probe.settle({
      kind: 'answered',
      observation: { limit: 10, remaining: 1, resetAt: clock.time + 300, observedAt: clock.time },
    });
    const waiting = Array.from({ length: 5 }, () => budget.acquire('interactive'));
    expect(await granted(waiting)).toBe(1);
    expect(budget.snapshotNow()).toMatchObject({ remaining: 0, resetAt: clock.time + 300 });
  });

  it('caps an absurd X-RateLimit-Reset (epoch seconds read as ms) at one window and logs it once', async () => {
    const clock = new TestClock(1_000_000);
    const lines: string[] = [];
    const budget = new WindowBudget({
      limit: 10,
      windowMs: 1_000,
      clock,
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    const epochSeconds = Math.ceil(Date.UTC(2026, 10, 22) / 1000); // ~21 days when read as ms
    for (let i = 0; i < 3; i += 1) {
      (await budget.acquire('interactive')).settle({
        kind: 'answered',
        observation: { limit: 10, remaining: 5 - i, resetAt: clock.time + epochSeconds, observedAt: clock.time },
      });
    }
    expect(budget.snapshotNow().resetAt).toBe(clock.time + 1_000);
    (await budget.acquire('interactive')).settle({
      kind: 'answered',
      observation: { limit: 10, remaining: 0, resetAt: clock.time + epochSeconds, observedAt: clock.time },
    });
    expect(await budget.estimatedWaitMs('interactive')).toBe(1_000);
    expect(lines.filter((line) => line.includes('X-RateLimit-Reset'))).toHaveLength(1);
  });
});
