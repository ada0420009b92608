import { randomUUID } from 'node:crypto';
import { type Logger, silentLogger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { sleep, systemClock } from '../time/clock.js';
import {
  type AcquireOptions,
  type BudgetPermit,
  type BudgetSnapshot,
  checkedReserveRatio,
  estimatedWaitFrom,
  type PermitOutcome,
  type Priority,
  type RequestBudget,
} from './budget.js';
import { absurdResetWarning, readBudgetObservation } from './budget-observation.js';
import { PriorityWaiters, type Waiter } from './priority-waiters.js';
import { assertRateLimit } from './rate-limit.js';
import type { RateLimitObservation } from './rate-limit-headers.js';

/** Runs a Lua script atomically where the budget lives (Redis `EVAL`). */
export type ScriptRunner = (script: string, keys: string[], args: string[]) => Promise<unknown>;

export interface SharedBudgetOptions {
  /** Runs the admission and settlement scripts; every replica must reach the same Redis. */
  run: ScriptRunner;
  /** Key prefix of the budget's state. @default 'eventops:budget' */
  key?: string;
  /** Requests per window (the spec's 180), for all replicas together. */
  limit: number;
  windowMs: number;
  /** Share of each window kept back for interactive requests, across replicas. @default 0.15 */
  reserveRatio?: number;
  /**
   * How long a granted request counts as in flight if its replica never settles it (it died):
   * longer than any request can take. While the window is unknown, it holds every replica's probe
   * back. @default one and a half times `longestRequestMs`, and never more than 2 windows
   */
  leaseMs?: number;
  /** The longest one request can take before its replica gives up on it (the transport's deadline). */
  longestRequestMs?: number;
  /** Longest sleep between two admission attempts while waiting. @default 100 */
  pollMs?: number;
  /**
   * This replica's clock: the one its observations' instants and its snapshots' readers use. The
   * budget's own instants are Redis's (`TIME`); only durations cross between the two.
   */
  clock?: Clock;
  logger?: Logger;
}

/*
 * Four keys. The state, in one hash: the same model as `WindowBudget` (see there). The in-flight
 * requests, in a sorted set whose scores are lease ends, so a replica that dies mid-request stops
 * counting once its lease ends. People waiting anywhere, in a second sorted set (scores: when
 * their wait is forgotten unless refreshed); while one is waiting, no replica admits background
 * work. The requests settled within the last lease, in a third (scores: when they were settled),
 * so an answer's count can be corrected for the requests answered since its own was granted.
 *
 * Every instant stored here (resets, pauses, leases, waiting marks, settlements) is in Redis's clock,
 * read with `TIME`, never a replica's: a replica whose clock is off would otherwise expire the others'
 * waiting people and leases, or turn the window, early or late by its error. Replicas pass durations
 * (a reset's "in 2 s", an answer's age), measured on their own clocks, where skew cancels out. Redis
 * replicates scripts by their effects (the default from 5.0, the only way from 7.0), so `TIME` may
 * come before writes.
 *
 * The hash's fields: remaining (estimate of what the window still allows, in-flight requests
 * subtracted), resetAt, rolledAt (set when the window turned by the clock, not a header), known (0
 * while a probe must go first), pausedUntil, limit (the server's, capped), grants, adoptedGrant,
 * rateLimited, leastSeen (the fewest remaining any answer of this window reported), last (the
 * newest observation's limit and remaining, JSON), lastResetAt and lastObservedAt (its instants).
 */
const COMMON = `
local stateKey, inflightKey, waitingKey, settledKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local leaseMs = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', inflightKey, '-inf', now)
redis.call('ZREMRANGEBYSCORE', waitingKey, '-inf', now)
local s = redis.call('HMGET', stateKey, 'remaining', 'resetAt', 'rolledAt', 'known', 'pausedUntil', 'limit',
  'grants', 'adoptedGrant', 'rateLimited', 'leastSeen')
local limit = tonumber(s[6]) or tonumber(ARGV[2])
local st = {
  remaining = tonumber(s[1]) or limit, resetAt = tonumber(s[2]), rolledAt = tonumber(s[3]),
  known = tonumber(s[4]) or 0, pausedUntil = tonumber(s[5]) or 0, limit = limit,
  grants = tonumber(s[7]) or 0, adoptedGrant = tonumber(s[8]) or -1, rateLimited = tonumber(s[9]) or 0,
  leastSeen = tonumber(s[10]),
}
local inflight = redis.call('ZCARD', inflightKey)
-- Once the window has turned, some of the limit is back, though how much is unknown: one probe says.
if st.resetAt and now >= st.resetAt then
  st.remaining = st.limit - inflight
  st.resetAt = now + windowMs
  st.rolledAt = now
  st.known = 0
end
local function save()
  local fields = {'remaining', st.remaining, 'known', st.known, 'pausedUntil', st.pausedUntil, 'limit', st.limit,
    'grants', st.grants, 'adoptedGrant', st.adoptedGrant, 'rateLimited', st.rateLimited}
  if st.resetAt then table.insert(fields, 'resetAt'); table.insert(fields, st.resetAt) end
  if st.leastSeen then table.insert(fields, 'leastSeen'); table.insert(fields, st.leastSeen) end
  redis.call('HSET', stateKey, unpack(fields))
  if st.rolledAt then redis.call('HSET', stateKey, 'rolledAt', st.rolledAt) else redis.call('HDEL', stateKey, 'rolledAt') end
end
`;

/**
 * ARGV: windowMs, configuredLimit, leaseMs, priority, reserveRatio, waiterId, probePollMs,
 * waitingTtlMs (how long a waiting person holds background work back unless their replica asks again).
 */
const ACQUIRE = `${COMMON}
local priority, reserveRatio, waiter, probePoll = ARGV[4], tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local waitingTtl = tonumber(ARGV[8])
local function deny(waitMs)
  if priority == 'interactive' then redis.call('ZADD', waitingKey, now + waitingTtl, waiter) end
  save()
  return {0, waitMs}
end
if now < st.pausedUntil then return deny(st.pausedUntil - now) end
if st.known == 0 and inflight > 0 then return deny(probePoll) end
local floor = 0
if priority == 'background' then
  floor = math.ceil(st.limit * reserveRatio)
  if redis.call('ZCOUNT', waitingKey, now, '+inf') > 0 then return deny(probePoll) end
end
if st.remaining > floor then
  st.remaining = st.remaining - 1
  st.grants = st.grants + 1
  redis.call('ZADD', inflightKey, now + leaseMs, st.grants)
  redis.call('ZREM', waitingKey, waiter)
  save()
  redis.call('PEXPIRE', stateKey, windowMs * 10)
  return {1, st.grants}
end
if st.resetAt then return deny(math.max(1, st.resetAt - now)) end
return deny(windowMs)
`;

/**
 * ARGV: windowMs, configuredLimit, leaseMs, grant, kind, then for 'answered': limit, remaining, resetInMs
 * and ageMs (how far the reset is from now, how long ago the answer arrived), lastJson; for
 * 'rate-limited': waitMs.
 */
const SETTLE = `${COMMON}
local grant, kind = tonumber(ARGV[4]), ARGV[5]
-- When this request was granted: every request answered since may have reached the service after
-- it, so this answer's count may not include them (requests are not answered in grant order).
local leaseEnd = redis.call('ZSCORE', inflightKey, grant)
local grantedAt = leaseEnd and (tonumber(leaseEnd) - leaseMs)
redis.call('ZREM', inflightKey, grant)
redis.call('ZADD', settledKey, now, grant)
redis.call('ZREMRANGEBYSCORE', settledKey, '-inf', now - leaseMs)
redis.call('PEXPIRE', settledKey, leaseMs)
inflight = redis.call('ZCARD', inflightKey)
if kind == 'answered' then
  local obsLimit, obsRemaining = tonumber(ARGV[6]), tonumber(ARGV[7])
  local obsResetAt, observedAt = now + tonumber(ARGV[8]), now - tonumber(ARGV[9])
  local last = redis.call('HGET', stateKey, 'lastObservedAt')
  if not last or observedAt >= tonumber(last) then
    redis.call('HSET', stateKey, 'last', ARGV[10], 'lastResetAt', obsResetAt, 'lastObservedAt', observedAt)
  end
  st.limit = obsLimit
  local tolerance = windowMs / 2
  -- Requests in flight, and those answered since this one was granted (itself excluded), may be
  -- missing from its count: they are subtracted, so the estimate never exceeds the truth.
  local answeredSince = grantedAt and (redis.call('ZCOUNT', settledKey, grantedAt, '+inf') - 1) or inflight
  local function adopt()
    st.resetAt = obsResetAt
    st.remaining = obsRemaining - inflight - answeredSince
    st.adoptedGrant = grant
  end
  local stale = false
  local newWindow = false
  local sameWindow = false
  if st.rolledAt then
    -- Our reset was a guess: a header about a window that ends after the turn is the truth; one
    -- about the window that ended says nothing, and the probe is still owed.
    if obsResetAt > st.rolledAt then
      st.rolledAt = nil
      newWindow = true
    else
      stale = true
    end
  elseif not st.resetAt or obsResetAt > st.resetAt + tolerance then
    newWindow = true
  elseif obsResetAt >= st.resetAt - tolerance then
    sameWindow = true
  end
  -- (Otherwise a late answer from the previous window.)
  if newWindow then
    adopt()
    st.leastSeen = obsRemaining
  elseif sameWindow then
    if grant > st.adoptedGrant then adopt() end
    st.leastSeen = math.min(st.leastSeen or obsRemaining, obsRemaining)
    -- With nothing in flight, the fewest remaining any answer of this window reported is where the
    -- window stands after all our requests (in a fixed window; less than that in a rolling one).
    if inflight == 0 then st.remaining = math.max(st.remaining, st.leastSeen) end
  end
  if not stale then st.known = 1 end
elseif kind == 'unheaded' then
  st.known = 1
elseif kind == 'rate-limited' then
  st.rateLimited = st.rateLimited + 1
  st.pausedUntil = math.max(st.pausedUntil, now + tonumber(ARGV[6]))
  st.resetAt = st.pausedUntil
  st.remaining = -inflight
  st.known = 0
end
save()
return 1
`;

/** ARGV: waiterId. A waiting person left (gave up or was cancelled). */
const LEAVE = `redis.call('ZREM', KEYS[3], ARGV[1])
return 1`;

/**
 * ARGV: windowMs, configuredLimit, leaseMs. Returns the state after rolling, without saving it (only
 * the ended leases and waiting marks are dropped, as by every script built on COMMON), the newest observation
 * (JSON and its two instants, as stored) and Redis's now.
 */
const READ = `${COMMON}
local last = redis.call('HMGET', stateKey, 'last', 'lastResetAt', 'lastObservedAt')
return {st.remaining, st.resetAt or -1, st.pausedUntil, inflight, st.limit, st.rateLimited, now,
  last[1] or '', last[2] or '', last[3] or ''}
`;

/** READ's answer: remaining, resetAt, pausedUntil, inFlight, limit, rateLimited, now, then the newest observation. */
type ReadReply = [number, number, number, number, number, number, number, string, string, string];

interface SharedWaiter extends Waiter<BudgetPermit> {
  /** Names a waiting person in Redis, so every replica holds its background work back. */
  id: string;
}

/**
 * The organization's request budget shared by every replica through Redis: one atomic admission
 * script per request, settled from the `X-RateLimit-*` headers of its answer. The model is
 * `WindowBudget`'s (probe first, headers win, interactive first, background keeps off the reserve);
 * the state lives in Redis so that all replicas spend one allowance. Each process queues its own
 * waiters (people before background work) and asks Redis for the head of the queue, one at a time.
 */
export class SharedBudget implements RequestBudget {
  readonly #run: ScriptRunner;
  readonly #keys: string[];
  readonly #configuredLimit: number;
  readonly #windowMs: number;
  readonly #reserveRatio: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #waiters = new PriorityWaiters<BudgetPermit, SharedWaiter>();
  #pumping = false;
  #wake: AbortController | undefined;
  readonly #warnAbsurdReset: (raw: RateLimitObservation) => void;

  constructor(options: SharedBudgetOptions) {
    assertRateLimit(options);
    const reserveRatio = checkedReserveRatio(options.reserveRatio);
    const key = options.key ?? 'eventops:budget';
    // One hash tag keeps the four keys in one slot should the Redis be a cluster.
    this.#keys = [`{${key}}:state`, `{${key}}:inflight`, `{${key}}:waiting`, `{${key}}:settled`];
    this.#run = options.run;
    this.#configuredLimit = options.limit;
    this.#windowMs = options.windowMs;
    this.#reserveRatio = reserveRatio;
    this.#leaseMs =
      options.leaseMs ?? Math.min(options.windowMs * 2, 1.5 * (options.longestRequestMs ?? Number.POSITIVE_INFINITY));
    this.#pollMs = options.pollMs ?? 100;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
    this.#warnAbsurdReset = absurdResetWarning(this.#logger, this.#windowMs);
  }

  acquire(priority: Priority, options: AcquireOptions = {}): Promise<BudgetPermit> {
    const id = randomUUID();
    // A person who gives up stops holding back the other replicas' background work at once.
    const leave = () => {
      if (priority !== 'interactive') return;
      void this.#run(LEAVE, this.#keys, [id]).catch(() => undefined);
    };
    const permit = this.#waiters.wait({ id, priority }, options, leave);
    this.#kick();
    return permit;
  }

  /** The snapshot's instants are in this replica's clock, for readers that compare them with it. */
  async snapshot(): Promise<BudgetSnapshot> {
    const { snapshot, now } = await this.#read();
    const shift = this.#clock.now() - now;
    const local = (at: number | undefined) => (at === undefined ? undefined : at + shift);
    const last = snapshot.lastObservation;
    return {
      ...snapshot,
      resetAt: local(snapshot.resetAt),
      pausedUntil: local(snapshot.pausedUntil),
      lastObservation: last && { ...last, resetAt: last.resetAt + shift, observedAt: last.observedAt + shift },
    };
  }

  async estimatedWaitMs(priority: Priority): Promise<number> {
    const { snapshot, now } = await this.#read();
    return estimatedWaitFrom(snapshot, priority, now);
  }

  /** The state as Redis holds it: its instants, and `now`, in Redis's clock. */
  async #read(): Promise<{ snapshot: BudgetSnapshot; now: number }> {
    const [remaining, resetAt, pausedUntil, inFlight, limit, rateLimited, now, last, lastResetAt, lastObservedAt] =
      (await this.#run(READ, this.#keys, this.#common())) as ReadReply;
    const seen =
      last && lastResetAt && lastObservedAt ? (JSON.parse(last) as { limit: number; remaining: number }) : undefined;
    const snapshot: BudgetSnapshot = {
      limit,
      remaining: Math.max(0, remaining),
      resetAt: resetAt >= 0 ? resetAt : undefined,
      pausedUntil: pausedUntil > now ? pausedUntil : undefined,
      inFlight,
      queued: {
        interactive: this.#waiters.queues.interactive.length,
        background: this.#waiters.queues.background.length,
      },
      reserve: Math.ceil(limit * this.#reserveRatio),
      lastObservation: seen && {
        limit: seen.limit,
        remaining: seen.remaining,
        resetAt: Number(lastResetAt),
        observedAt: Number(lastObservedAt),
      },
      rateLimitedResponses: rateLimited,
    };
    return { snapshot, now };
  }

  #common(): string[] {
    return [String(this.#windowMs), String(this.#configuredLimit), String(this.#leaseMs)];
  }

  /** Starts the pump, or wakes it from its sleep when something may have changed. */
  #kick(): void {
    if (this.#pumping) {
      this.#wake?.abort();
      return;
    }
    this.#pumping = true;
    void this.#pump()
      .catch((error: unknown) => {
        // Redis is gone: everyone waiting hears it rather than waiting forever.
        this.#logger.error('The shared request budget could not be reached', { error });
        for (const waiter of this.#waiters.drain()) {
          waiter.reject(error);
        }
      })
      .finally(() => {
        this.#pumping = false;
        if (this.#waiters.size > 0) this.#kick();
      });
  }

  async #pump(): Promise<void> {
    for (;;) {
      // A person waiting keeps every background request of this process behind them.
      const waiter = this.#waiters.head();
      if (!waiter) return;
      const answer = (await this.#run(ACQUIRE, this.#keys, [
        ...this.#common(),
        waiter.priority,
        String(this.#reserveRatio),
        waiter.id,
        String(Math.min(10, this.#pollMs)),
        // The head waiter asks again at least every poll: a few polls' worth outlives a hiccup.
        String(Math.max(1_000, 10 * this.#pollMs)),
      ])) as [number, number];
      if (answer[0] === 1) {
        const permit = this.#permit(answer[1]);
        if (this.#waiters.remove(waiter)) {
          waiter.resolve(permit);
        } else {
          permit.settle({ kind: 'unobserved' }); // cancelled while Redis answered: give it back as spent
        }
        continue;
      }
      this.#wake = new AbortController();
      await sleep(Math.min(answer[1], this.#pollMs), this.#wake.signal).catch(() => undefined);
      this.#wake = undefined;
    }
  }

  #permit(grant: number): BudgetPermit {
    let settled = false;
    return {
      settle: (outcome: PermitOutcome) => {
        if (settled) return;
        settled = true;
        void this.#settle(grant, outcome)
          .catch((error: unknown) => this.#logger.warn('Could not settle a request in the shared budget', { error }))
          .finally(() => {
            if (this.#waiters.size > 0) this.#kick();
          });
      },
    };
  }

  async #settle(grant: number, outcome: PermitOutcome): Promise<void> {
    await this.#run(SETTLE, this.#keys, [...this.#common(), String(grant), ...this.#settlement(outcome)]);
  }

  /** SETTLE's arguments after the grant: the outcome's kind and what it says. */
  #settlement(outcome: PermitOutcome): string[] {
    if (outcome.kind === 'rate-limited') return ['rate-limited', String(outcome.waitMs)];
    if (outcome.kind === 'unobserved') return ['unobserved'];
    if (!outcome.observation) return ['unheaded'];
    const reading = readBudgetObservation(outcome.observation, {
      configuredLimit: this.#configuredLimit,
      windowMs: this.#windowMs,
    });
    if (reading.capped) this.#warnAbsurdReset(outcome.observation);
    const { observation } = reading;
    // Durations on this replica's clock, so its error cancels out: Redis turns them into its instants.
    const now = this.#clock.now();
    return [
      'answered',
      String(reading.limit),
      String(reading.remaining),
      String(observation.resetAt - now),
      String(Math.max(0, now - observation.observedAt)),
      JSON.stringify({ limit: observation.limit, remaining: observation.remaining }),
    ];
  }
}
