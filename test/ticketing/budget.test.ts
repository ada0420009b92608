import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type BudgetPermit, WindowBudget } from '../../src/ticketing/budget.js';
import { resolvedWithin } from '../helpers/wait-for.js';

// The rules both budgets keep are in budget-contract.test.ts; here, what an injected clock shows exactly.

/** Resolves what has been granted so far without waiting for the rest. */
async function granted(promises: Promise<BudgetPermit>[]): Promise<number> {
  return (await resolvedWithin(promises, 10)).filter(Boolean).length;
}

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
