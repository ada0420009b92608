import { randomUUID } from 'node:crypto';
import type { RateLimitObservation } from '../../ticketing/rate-limit-headers.js';
import type { ScriptRunner } from '../../ticketing/shared-budget.js';
import { type WatchShareOptions, watchShare } from './watch-share.js';

export interface ReportSlotsOptions {
  /** Runs the scripts; every replica must reach the same Redis. */
  run: ScriptRunner;
  /** Prefix of the four keys (`slots`, `held`, `state`, `watch`); keep it in one cluster slot (a hash tag). */
  key: string;
  /** Report calls in any window, for all replicas together (the spec's 3). */
  limit: number;
  windowMs: number;
  /**
   * How long a slot stays taken when its holder never says the call finished (it died). Renew it
   * more often than `leaseMs - windowMs` while the call runs.
   */
  leaseMs: number;
  /** The watches' share of slots while people's reports wait. @default one slot in every 5 windows */
  watchShare?: WatchShareOptions;
}

export type SlotGrant = { slot: string } | { waitMs: number };

/*
 * The report limit as a rolling window in Redis, the rule the in-process `ReportQueue` keeps:
 * every call takes a slot, and a slot frees one window after its call FINISHED (the service may
 * have counted the call at any moment until its answer came). `slots` holds every slot still taken
 * (score: when it frees); `held` the slots whose call has not finished (score: lease end). `state`
 * holds a 429's wait (blockedUntil) and the newest answer's headers (observedAt, resetAt, left,
 * limit). Every time is Redis `TIME`, so replicas whose clocks disagree still share one rule.
 */
const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local slotsKey, heldKey, stateKey, watchKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
-- The state is kept as long as the furthest time it names.
local function keepStateFor(ms)
  if redis.call('PTTL', stateKey) < ms then redis.call('PEXPIRE', stateKey, math.max(1, math.ceil(ms))) end
end
`;

/**
 * ARGV 1-4: configured limit, windowMs, leaseMs, slot id. `tryTake(heldUntil)` returns {1, 0}
 * (taken) or {0, waitMs}; a free slot is not taken before `heldUntil` (kept for the watches), and
 * then the wait is short: a watch may take it, or the hold end, any moment.
 */
const TRY_TAKE = `${NOW}
local configured, windowMs, leaseMs, slot = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local function tryTake(heldUntil)
redis.call('ZREMRANGEBYSCORE', slotsKey, '-inf', now)
redis.call('ZREMRANGEBYSCORE', heldKey, '-inf', now)
local s = redis.call('HMGET', stateKey, 'blockedUntil', 'resetAt', 'left', 'limit')
local blockedUntil, resetAt, left = tonumber(s[1]) or 0, tonumber(s[2]) or 0, tonumber(s[3]) or 0
-- A 429 said how long to wait: every replica waits that long.
if now < blockedUntil then return {0, blockedUntil - now} end
local observed = now < resetAt
local limit = configured
-- The service may allow fewer than configured: its own headers say so.
local serverLimit = tonumber(s[4])
if observed and serverLimit and serverLimit >= 1 and serverLimit < limit then limit = serverLimit end
local used = redis.call('ZCARD', slotsKey)
if used >= limit then
  -- Wait for the slot that frees first; one still in flight frees no sooner than a window from now.
  local first = redis.call('ZRANGE', slotsKey, used - limit, used - limit, 'WITHSCORES')
  return {0, math.max(1, math.min(tonumber(first[2]), now + windowMs) - now)}
end
-- Until its reset, the newest answer's count is the truth (another key may spend the same allowance).
if observed and left <= 0 then return {0, resetAt - now} end
if now < heldUntil then return {0, math.min(heldUntil - now, 200)} end
redis.call('ZADD', slotsKey, now + leaseMs, slot)
redis.call('ZADD', heldKey, now + leaseMs, slot)
redis.call('PEXPIRE', slotsKey, leaseMs + windowMs)
redis.call('PEXPIRE', heldKey, leaseMs)
if observed then redis.call('HINCRBY', stateKey, 'left', -1) end
return {1, 0}
end
`;

/**
 * A person's call (ARGV as `TRY_TAKE`'s): no slot while one is kept for the watches' share
 * (`claimUntil`, see `watch-share.ts`). Returns {1, 0} (taken) or {0, waitMs}.
 */
const TAKE = `${TRY_TAKE}
local taken = tryTake(tonumber(redis.call('HGET', watchKey, 'claimUntil')) or 0)
if taken[1] == 1 and redis.call('EXISTS', watchKey) == 1 then redis.call('HSET', watchKey, 'personSince', 1) end
return taken
`;

/**
 * A watch's call (`watch-share.ts` has the rule): ARGV 1-4 as `TRY_TAKE`'s, then whether people's
 * reports wait ('1'/'0'), shareMs, holdMs. With people waiting, only when the watches are owed a
 * slot (none taken in `shareMs`), and then, with no slot free now, the next one is claimed for them.
 * Returns {1, 0} (taken) or {0, waitMs}.
 */
const TAKE_SPARE = `${TRY_TAKE}
local peopleWait, shareMs, holdMs = ARGV[5] == '1', tonumber(ARGV[6]), tonumber(ARGV[7])
local w = redis.call('HMGET', watchKey, 'lastAt', 'personSince')
local lastAt = tonumber(w[1])
-- Owed when none was taken in shareMs and a person took a slot since: never two watch calls in a row.
local owed = (not lastAt) or (w[2] == '1' and now - lastAt >= shareMs)
if peopleWait and not owed then return {0, 0} end
local taken = tryTake(0)
if taken[1] == 1 then
  redis.call('HSET', watchKey, 'lastAt', now)
  redis.call('HDEL', watchKey, 'claimUntil', 'personSince')
  -- Kept a day (not shareMs): while people wait, the next watch slot needs a person's first.
  redis.call('PEXPIRE', watchKey, math.max(86400000, shareMs + holdMs))
elseif peopleWait then
  redis.call('HSET', watchKey, 'claimUntil', now + taken[2] + holdMs)
  redis.call('PEXPIRE', watchKey, math.max(86400000, shareMs + taken[2] + holdMs))
end
return taken
`;

/** ARGV: leaseMs, slot id. Only ever sent before the slot's FINISH. */
const RENEW = `${NOW}
local leaseMs, slot = tonumber(ARGV[1]), ARGV[2]
redis.call('ZADD', slotsKey, now + leaseMs, slot)
redis.call('ZADD', heldKey, now + leaseMs, slot)
redis.call('PEXPIRE', slotsKey, leaseMs * 2)
redis.call('PEXPIRE', heldKey, leaseMs)
return 1
`;

/** ARGV: windowMs, leaseMs, slot id, waitMs (a 429's, else 0). */
const FINISH = `${NOW}
local windowMs, leaseMs, slot, waitMs = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
redis.call('ZREM', heldKey, slot)
-- The service may have counted the call at any moment until now: its slot frees a window from now
-- (taken again if its lease had lapsed meanwhile).
redis.call('ZADD', slotsKey, now + windowMs, slot)
redis.call('PEXPIRE', slotsKey, leaseMs + windowMs)
if waitMs > 0 then
  local blockedUntil = tonumber(redis.call('HGET', stateKey, 'blockedUntil')) or 0
  if now + waitMs > blockedUntil then redis.call('HSET', stateKey, 'blockedUntil', now + waitMs) end
  keepStateFor(waitMs)
end
return 1
`;

/**
 * ARGV: limit, remaining, resetInMs, ageMs (how long ago the answer came), the slot of the call it
 * answered ('' if unknown).
 */
const OBSERVE = `${NOW}
local limit, remaining, resetIn, age, slot = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
  tonumber(ARGV[4]), ARGV[5]
local observedAt = now - age
-- Answers overtake each other: an older one never replaces a newer one.
local last = tonumber(redis.call('HGET', stateKey, 'observedAt'))
if last and observedAt < last then return 0 end
redis.call('ZREMRANGEBYSCORE', heldKey, '-inf', now)
-- Calls still in flight (besides the one answered) may reach the service after this count was
-- made: they are taken off what it says is left.
local uncounted = redis.call('ZCARD', heldKey)
if slot ~= '' and redis.call('ZSCORE', heldKey, slot) then uncounted = uncounted - 1 end
redis.call('HSET', stateKey, 'observedAt', observedAt, 'resetAt', observedAt + resetIn, 'left', remaining - uncounted,
  'limit', limit)
keepStateFor(observedAt + resetIn - now)
return 1
`;

/**
 * The report limit shared by replicas as a rolling window of slots in Redis: a call takes a slot
 * before it is sent and gives it back when it finished, and the slot frees one window later. A
 * replica that dies holding a slot stops holding it when its lease ends.
 */
export class ReportSlots {
  readonly #run: ScriptRunner;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #leaseMs: number;
  readonly #share: { shareMs: number; holdMs: number };
  /** The keys, for whoever reads the slots alongside other keys (the queue's progress view). */
  readonly keys: { slots: string; held: string; state: string; watch: string };

  constructor(options: ReportSlotsOptions) {
    if (options.leaseMs <= options.windowMs) {
      throw new RangeError(`leaseMs must exceed windowMs (${options.windowMs}); got ${options.leaseMs}`);
    }
    this.#run = options.run;
    this.#limit = options.limit;
    this.#windowMs = options.windowMs;
    this.#leaseMs = options.leaseMs;
    this.#share = watchShare(options.watchShare ?? {}, options.windowMs);
    this.keys = {
      slots: `${options.key}:slots`,
      held: `${options.key}:held`,
      state: `${options.key}:state`,
      watch: `${options.key}:watch`,
    };
  }

  get #keyList(): string[] {
    return [this.keys.slots, this.keys.held, this.keys.state, this.keys.watch];
  }

  /** A slot for one call, or how long until one may free. */
  async take(): Promise<SlotGrant> {
    const slot = randomUUID();
    const [granted, waitMs] = (await this.#run(TAKE, this.#keyList, [
      String(this.#limit),
      String(this.#windowMs),
      String(this.#leaseMs),
      slot,
    ])) as [number, number];
    return granted === 1 ? { slot } : { waitMs: Math.max(1, Number(waitMs)) };
  }

  /**
   * A slot for a watch's call: free now, and with people's reports waiting only as the watches'
   * share (then the next slot to free is kept for them a while); else undefined.
   */
  async takeSpare(peopleWait: boolean): Promise<string | undefined> {
    const slot = randomUUID();
    const [granted] = (await this.#run(TAKE_SPARE, this.#keyList, [
      String(this.#limit),
      String(this.#windowMs),
      String(this.#leaseMs),
      slot,
      peopleWait ? '1' : '0',
      String(this.#share.shareMs),
      String(this.#share.holdMs),
    ])) as [number, number];
    return granted === 1 ? slot : undefined;
  }

  /** Keeps a slot whose call still runs from lapsing. */
  async renew(slot: string): Promise<void> {
    await this.#run(RENEW, this.#keyList, [String(this.#leaseMs), slot]);
  }

  /** The call finished: its slot frees one window from now. A 429's wait holds every replica back. */
  async finish(slot: string, rateLimitedForMs = 0): Promise<void> {
    await this.#run(FINISH, this.#keyList, [
      String(this.#windowMs),
      String(this.#leaseMs),
      slot,
      String(Math.max(0, Math.ceil(rateLimitedForMs))),
    ]);
  }

  /**
   * The report endpoint's own headers (`now` on the same clock as the observation: only the
   * difference is used). A reset further off than a window and a tenth is read as a window and a
   * tenth, as a misread header must not stop reports for weeks.
   */
  async observe(observation: RateLimitObservation, now: number, slot?: string): Promise<void> {
    const resetInMs = Math.min(Math.max(0, observation.resetAt - observation.observedAt), this.#windowMs * 1.1);
    await this.#run(OBSERVE, this.#keyList, [
      String(observation.limit),
      String(observation.remaining),
      String(Math.ceil(resetInMs)),
      String(Math.max(0, Math.round(now - observation.observedAt))),
      slot ?? '',
    ]);
  }
}
