/**
 * The Lua of the replicas' fair turns, run in Redis on BullMQ's keys (`shared-report-queue.ts`
 * runs them): each person's requests take their own round, a job starts only in its turn, and a
 * job without a slot goes back to the head of its round.
 */

/** BullMQ's largest priority (`PRIORITY_LIMIT`: 2^21 - 1); 0 means none. */
export const MAX_PRIORITY = 2 ** 21 - 1;

/*
 * People take turns, as in the in-process queue, for every replica at once: a person's next request
 * takes the round after their last, someone new (or a request without a person) joins the current
 * round, the round of the latest job to start. BullMQ keeps prioritized jobs by priority, then
 * arrival: a job's priority is its round, less a base, so the queue runs round by round, first come
 * first served within one.
 *
 * A priority has a maximum (2^21 - 1) and rounds only grow: when no job is queued, delayed or in
 * hand (none holds a priority), the base moves up to just under the current round, which becomes
 * priority 1. The rounds themselves, and each person's last one, are kept as they are. Past the
 * maximum (that many rounds ahead of the base without the queue ever empty) requests share the
 * last priority: first come, first served. The turn and BullMQ's add are two commands: a request
 * given its priority just as the queue empties, and added after another replica moved the base,
 * keeps its higher priority (never lost, at worst a few turns late).
 *
 * KEYS: the rounds' state (hash: round, base), the person's last round (any key when there is no
 * person), then BullMQ's wait list, prioritized set, delayed set and active list. ARGV: whether
 * there is a person ('1'/'0'), how long a person's last round is kept (ms), the largest priority.
 * Returns {round, priority}.
 */
export const TURN = `
local stateKey, lastKey = KEYS[1], KEYS[2]
local person, keepMs, maxPriority = ARGV[1] == '1', tonumber(ARGV[2]), tonumber(ARGV[3])
local current = tonumber(redis.call('HGET', stateKey, 'round')) or 0
local base = tonumber(redis.call('HGET', stateKey, 'base')) or 0
if redis.call('LLEN', KEYS[3]) == 0 and redis.call('ZCARD', KEYS[4]) == 0 and redis.call('ZCARD', KEYS[5]) == 0
  and redis.call('LLEN', KEYS[6]) == 0 then
  base = math.max(0, current - 1)
  redis.call('HSET', stateKey, 'base', base)
end
local last = 0
if person then last = tonumber(redis.call('GET', lastKey)) or 0 end
local round = math.max(current, last + 1)
if person then redis.call('SET', lastKey, round, 'PX', keepMs) end
return {round, math.max(1, math.min(round - base, maxPriority))}
`;

/*
 * A job starts (it has its slot, or needs none): it is marked started, and its round (when it has
 * one) becomes the current one. KEYS: the rounds' state, the started jobs (score: when). ARGV: the
 * round ('' for none), the job id, how long a mark is kept (ms: as long as a job may be in hand).
 */
export const START_TURN = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZADD', KEYS[2], now, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if ARGV[1] ~= '' and (tonumber(redis.call('HGET', KEYS[1], 'round')) or 0) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'round', ARGV[1])
end
return 1
`;

/*
 * Whether a job BullMQ has just handed out may take its slot now, so that slots go in turn order
 * across replicas (their workers wake together when a wait ends and take several jobs at once;
 * whichever then asks for the one free slot first would get it):
 * - not yet (0) while another job handed out, not yet started, comes first: a lower priority, or
 *   the same one and an earlier arrival (ids grow), a plain job before any prioritized one;
 * - not in its turn (-1) when a job handed out with it, whose turn comes first, has just gone
 *   back for want of a slot (a moment before one freed; BullMQ puts it first of its priority, at
 *   arrival 0): it goes back too, and that one is handed out first once the wait is over. Among
 *   jobs put back with the same priority, the earlier arrival (the lower id) comes first. (A
 *   newcomer in an earlier round, queued after this one was handed out, does not send it back:
 *   going back without a wait of its own, its worker would sit out BullMQ's limiter window);
 * - else yes (1).
 * KEYS: the active list, the started jobs, the prioritized set. ARGV: the job id, its priority (0:
 * none, a plain job, which BullMQ hands out first), the jobs' key prefix.
 */
export const TURN_NOW = `
local me, priority, prefix = ARGV[1], tonumber(ARGV[2]) or 0, ARGV[3]
local function before(other, otherPriority)
  if otherPriority ~= priority then return otherPriority < priority end
  local a, b = tonumber(other), tonumber(me)
  if a and b then return a < b end
  return other < me
end
for _, id in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if id ~= me and not redis.call('ZSCORE', KEYS[2], id) then
    if before(id, tonumber(redis.call('HGET', prefix .. id, 'priority')) or 0) then return 0 end
  end
end
if priority > 0 then
  -- BullMQ's score: priority * 2^32 + arrival; one put back is first of its priority (arrival 0).
  local mine = priority * 4294967296
  local best = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  local score = tonumber(best[2])
  if score and score < mine and score % 4294967296 == 0 then return -1 end
  if score == mine then
    -- Put back with this one's priority: the one that arrived first goes first, the others after
    -- it (several put back together, as when a replica died holding them, must not each send the
    -- next back for ever).
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], mine, mine)) do
      if id ~= me and before(id, priority) then return -1 end
    end
  end
end
return 1
`;

/*
 * Whether a person's request waits: queued (plain, prioritized, delayed for a retry), or handed out
 * and not started (it is about to ask for its slot). KEYS: the wait list, the prioritized set, the
 * delayed set, the active list, the started jobs. Returns 1 or 0.
 */
export const ANYONE_WAITING = `
if redis.call('LLEN', KEYS[1]) > 0 or redis.call('ZCARD', KEYS[2]) > 0 or redis.call('ZCARD', KEYS[3]) > 0 then
  return 1
end
for _, id in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
  if not redis.call('ZSCORE', KEYS[5], id) then return 1 end
end
return 0
`;

/** How long a job waits for jobs handed out whose turn comes first to start (one a dead replica held is not waited for longer). */
export const TURN_WAIT_MS = 200;

/*
 * A job goes back to the queue: not started (it will wait for its turn again), and a worker blocked
 * waiting for a job is woken (BullMQ's base marker). BullMQ puts a rate-limited job with a priority
 * back without one (`pushBackJobWithPriority`, 5.x): a worker of this replica or another, blocked
 * for a job meanwhile, would sleep its whole drain delay (5 s) before looking again. Woken, it
 * finds the queue rate-limited, waits exactly that long, then takes the job. KEYS: the marker, the
 * started jobs. ARGV: the job id.
 */
export const SEND_BACK = `
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], 0, '0')
return 1
`;
