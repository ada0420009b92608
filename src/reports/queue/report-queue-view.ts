import type { ScriptRunner } from '../../ticketing/shared-budget.js';

/** One look at the shared report queue: enough to tell every person this replica follows where they stand. */
export interface ReportQueueView {
  /**
   * The place of each waiting job: 1 starts next. BullMQ takes the plain waiting list first (jobs
   * without a priority: a stalled job taken back, one queued before turns), then the prioritized
   * set by score (the person's turn, then arrival): the places are in that order.
   */
  positions: ReadonlyMap<string, number>;
  waitingCount: number;
  active: ReadonlySet<string>;
  /** Estimated ms until the job at each place starts (index: place - 1), one place past the last too. */
  waits: readonly number[];
}

export interface ReportQueueKeys {
  /** BullMQ's waiting list (newest first), prioritized set (score: priority, then arrival) and active list. */
  wait: string;
  prioritized: string;
  active: string;
  /** The rolling slots (`ReportSlots.keys`). */
  slots: string;
  state: string;
}

/*
 * One atomic read, so a job moving from the waiting list or the prioritized set to the active list
 * (or back) is in exactly one of them.
 */
const LOOK = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
return {
  now,
  redis.call('LRANGE', KEYS[1], 0, -1),
  redis.call('ZRANGE', KEYS[2], 0, -1),
  redis.call('LRANGE', KEYS[3], 0, -1),
  redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. now, '+inf', 'WITHSCORES'),
  redis.call('HMGET', KEYS[5], 'blockedUntil', 'resetAt', 'left', 'limit'),
}
`;

export interface AdmissionInput {
  now: number;
  limit: number;
  windowMs: number;
  /** When each taken slot frees (a slot still in flight: its lease end). */
  frees: number[];
  blockedUntil: number;
  /** The newest answer's headers while they hold: what is left until the reset. */
  server?: { resetAt: number; left: number } | undefined;
}

/**
 * When the next `count` jobs can start, as ms from now, by the same rule as `ReportSlots`: a free
 * slot now, else the next one to free; each start takes a slot until a window after it.
 */
export function admissionWaits(count: number, input: AdmissionInput): number[] {
  const { now, windowMs } = input;
  // A call still in flight frees its slot a window after it finishes: no sooner than a window from now.
  const frees = input.frees.map((at) => Math.min(at, now + windowMs)).sort((a, b) => a - b);
  let free = Math.max(0, input.limit - frees.length);
  let next = Math.max(0, frees.length - input.limit);
  let serverLeft = input.server && now < input.server.resetAt ? input.server.left : Number.POSITIVE_INFINITY;
  const waits: number[] = [];
  for (let i = 0; i < count; i += 1) {
    let at = Math.max(now, input.blockedUntil);
    if (free > 0) free -= 1;
    else at = Math.max(at, frees[next++] ?? at);
    if (input.server && at < input.server.resetAt) {
      if (serverLeft <= 0) at = input.server.resetAt;
      else serverLeft -= 1;
    }
    frees.push(at + windowMs);
    waits.push(at - now);
  }
  return waits;
}

/** Reads the queue and the slots in one script. */
export async function lookAtQueue(
  run: ScriptRunner,
  keys: ReportQueueKeys,
  rule: { limit: number; windowMs: number },
): Promise<ReportQueueView> {
  const [now, plain, prioritized, active, slots, state] = (await run(
    LOOK,
    [keys.wait, keys.prioritized, keys.active, keys.slots, keys.state],
    [],
  )) as [number, string[], string[], string[], string[], (string | null)[]];
  // BullMQ pushes plain jobs on the left and starts them from the right, before any prioritized one.
  const waiting = [...plain].reverse().concat(prioritized);
  const positions = new Map(waiting.map((id, index) => [id, index + 1]));
  const frees: number[] = [];
  for (let i = 1; i < slots.length; i += 2) frees.push(Number(slots[i]));
  const [blockedUntil, resetAt, left, serverLimit] = state.map((value) => (value === null ? undefined : Number(value)));
  const limit = resetAt !== undefined && now < resetAt && serverLimit && serverLimit >= 1 ? serverLimit : rule.limit;
  return {
    positions,
    waitingCount: waiting.length,
    active: new Set(active),
    waits: admissionWaits(waiting.length + 1, {
      now,
      limit: Math.min(limit, rule.limit),
      windowMs: rule.windowMs,
      frees,
      blockedUntil: blockedUntil ?? 0,
      server: resetAt !== undefined && left !== undefined ? { resetAt, left } : undefined,
    }),
  };
}
