import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InProcessReportQueue } from '../../../src/reports/queue/in-process-report-queue.js';

/** The in-process report queue's turns: people take turns, and background work takes only spare slots. */
describe('ReportQueue turns', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 23, 12) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const queueOf = (fetched: string[]) =>
    new InProcessReportQueue({
      limit: 3,
      windowMs: 1_000,
      cacheTtlMs: 0,
      // Ten of one person's wait at once here (a deployment refuses the sixth).
      waiting: { perPerson: 10 },
      fetchReport: async (eventId) => {
        fetched.push(eventId);
        return { eventId };
      },
    });

  it("puts a second person's one report after the first of another person's ten, not after all ten", async () => {
    const fetched: string[] = [];
    const queue = queueOf(fetched);
    const ask = (eventId: string, requester: string) => queue.request(eventId, { requester }).result;
    const first = Array.from({ length: 10 }, (_, i) => ask(`evt_a${i}`, 'UALICE'));
    const second = ask('evt_b0', 'UBOB');
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all([...first, second]);
    // Three admitted at once before Bob asked; Bob's goes with the next window, before Alice's fourth.
    expect(fetched.indexOf('evt_b0')).toBe(3);
    expect(fetched).toHaveLength(11);
  });

  it('alternates between people who each asked for several', async () => {
    const fetched: string[] = [];
    const queue = queueOf(fetched);
    // Fill the window first, so that the order below is the queue's, not arrival's.
    for (let i = 0; i < 3; i += 1) queue.request(`evt_x${i}`, { requester: 'UFILL' });
    const asked = [
      ...['a0', 'a1', 'a2'].map((id) => queue.request(`evt_${id}`, { requester: 'UA' }).result),
      ...['b0', 'b1', 'b2'].map((id) => queue.request(`evt_${id}`, { requester: 'UB' }).result),
    ];
    await vi.advanceTimersByTimeAsync(5_000);
    await Promise.all(asked);
    expect(fetched.slice(3)).toEqual(['evt_a0', 'evt_b0', 'evt_a1', 'evt_b1', 'evt_a2', 'evt_b2']);
  });

  it('shows a waiting person their place in turn order', () => {
    const queue = queueOf([]);
    for (let i = 0; i < 3; i += 1) queue.request(`evt_x${i}`, { requester: 'UFILL' });
    for (let i = 0; i < 4; i += 1) queue.request(`evt_a${i}`, { requester: 'UA' });
    const bob = queue.request('evt_b0', { requester: 'UB' });
    expect(bob.progress()).toMatchObject({ state: 'queued', position: 2 });
  });

  it('gives background work a report only from a spare slot: none while a person waits or the window is full', async () => {
    const fetched: string[] = [];
    const queue = queueOf(fetched);
    const spare = queue.spare('evt_w0');
    expect(spare).toBeDefined();
    await expect(spare).resolves.toEqual({ eventId: 'evt_w0' });
    queue.request('evt_p0', { requester: 'UA' });
    queue.request('evt_p1', { requester: 'UA' });
    // The window's three slots are taken (one by the spare check).
    expect(queue.spare('evt_w1')).toBeUndefined();
    queue.request('evt_p2', { requester: 'UA' });
    // A person waits for the next slot: background work does not take it.
    await vi.advanceTimersByTimeAsync(10);
    expect(queue.waiting).toBe(1);
    expect(queue.spare('evt_w1')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_100);
    expect(queue.waiting).toBe(0);
    expect(fetched).toEqual(['evt_w0', 'evt_p0', 'evt_p1', 'evt_p2']);
  });

  it('does not fetch for background work an event a person is already getting', async () => {
    const fetched: string[] = [];
    const queue = queueOf(fetched);
    const person = queue.request('evt_p0', { requester: 'UA' });
    expect(queue.spare('evt_p0')).toBeUndefined();
    await person.result;
    expect(fetched).toEqual(['evt_p0']);
  });

  it("spends every slot the server's headers leave: the answer that brought them is not counted twice", async () => {
    const fetched: string[] = [];
    let used = 0;
    const windowStart = Date.now();
    const queue: InProcessReportQueue = new InProcessReportQueue({
      limit: 3,
      windowMs: 1_000,
      cacheTtlMs: 0,
      fetchReport: async (eventId) => {
        fetched.push(eventId);
        used += 1;
        // The server's own headers come with its answer, as the client feeds them.
        queue.observe({ limit: 3, remaining: 3 - used, resetAt: windowStart + 1_000, observedAt: Date.now() });
        return { eventId };
      },
    });
    // One after another, each asked once the previous one is in: three fit in the window.
    for (const id of ['evt_s0', 'evt_s1', 'evt_s2']) {
      await vi.advanceTimersByTimeAsync(10);
      const ticket = queue.request(id, { requester: 'UA' });
      await vi.advanceTimersByTimeAsync(0);
      expect(ticket.progress().state).not.toBe('queued');
      await ticket.result;
    }
    expect(fetched).toEqual(['evt_s0', 'evt_s1', 'evt_s2']);
  });
});
