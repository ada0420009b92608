import { createHash, randomUUID } from 'node:crypto';
import KeyvRedis from '@keyv/redis';
import { type Logger, silentLogger } from '../logger.js';
import { type Clock, every, systemClock } from '../time/clock.js';
import { CLAIM_RETENTION_MS } from './claimed-work.js';
import type { Claim, ClaimState, ClaimStore } from './claims.js';
import { type KeyLock, keyValueStore, LockBusy, type LockOptions, StoreError } from './key-value-store.js';
import { redisRefusal, redisStartError } from './redis-refusal.js';
import { describeRedis, parseRedisUrl } from './redis-url.js';
import type { SharedRedis, StoreHandle } from './store-handle.js';

/** The Redis commands this module needs (node-redis, as @keyv/redis holds it). */
interface RedisCommands {
  set(key: string, value: string, options?: Record<string, unknown>): Promise<unknown>;
  get(key: string): Promise<string | null>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Claims keep for one retention: Redis forgets them by itself (`ClaimedWork.prune` in SQLite). */
const CLAIM_TTL_MS = CLAIM_RETENTION_MS;

const asText = (claim: Claim) => JSON.stringify({ owner: claim.owner, state: claim.state, at: claim.at });

const COMPARE_AND_SET = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0`;

const SETTLE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local claim = cjson.decode(current)
if claim.owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1`;

const RELEASE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local claim = cjson.decode(current)
if claim.owner == ARGV[1] and claim.state == 'claimed' then return redis.call('DEL', KEYS[1]) end
return 0`;

const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** How long a lock lives unless its holder renews it: a replica that dies frees its locks this soon. */
export const LOCK_MS = 10_000;

/** Claims as single Redis operations: `SET NX` claims, Lua compare-and-set takes over and settles. */
export class RedisClaims implements ClaimStore {
  readonly #redis: RedisCommands;
  readonly #run: SharedRedis['runScript'];
  readonly #prefix: string;

  /** `prefix`: the deployment's namespace, so two deployments on one Redis claim apart. */
  constructor(redis: RedisCommands, run: SharedRedis['runScript'], prefix: string) {
    this.#redis = redis;
    this.#run = run;
    this.#prefix = prefix;
  }

  async claim(key: string, owner: string, at: number): Promise<boolean> {
    const done = await this.#redis.set(this.#prefix + key, asText({ owner, state: 'claimed', at }), {
      condition: 'NX',
      expiration: { type: 'PX', value: CLAIM_TTL_MS },
    });
    return done === 'OK';
  }

  async settle(key: string, owner: string, state: Exclude<ClaimState, 'claimed'>, at: number): Promise<void> {
    await this.#run(SETTLE, [this.#prefix + key], [owner, asText({ owner, state, at })]);
  }

  async get(key: string): Promise<Claim | undefined> {
    const text = await this.#redis.get(this.#prefix + key);
    if (!text) return undefined;
    const claim = JSON.parse(text) as Claim;
    return { owner: claim.owner, state: claim.state, at: Number(claim.at) };
  }

  async release(key: string, owner: string): Promise<void> {
    await this.#run(RELEASE, [this.#prefix + key], [owner]);
  }

  async takeOver(key: string, expected: Claim, owner: string, at: number): Promise<boolean> {
    const replaced = await this.#run(
      COMPARE_AND_SET,
      [this.#prefix + key],
      [asText(expected), asText({ owner, state: 'claimed', at })],
    );
    return replaced === 1;
  }

  /** Claims expire by themselves after two weeks. */
  async prune(): Promise<number> {
    return 0;
  }
}

/**
 * A lock across processes for one key's read-modify-write: `SET NX PX`, renewed every third of
 * its life while the work runs, for up to ten lives (so a long hold never lapses under its living
 * holder, and a dead or stuck holder's lapses), released only by its holder (Lua compare-and-delete).
 */
function redisLock(
  redis: RedisCommands,
  run: SharedRedis['runScript'],
  prefix: string,
  lockMs: number,
  logger: Logger,
  clock: Clock,
): KeyLock {
  return async <T>(key: string, work: () => Promise<T>, options?: LockOptions): Promise<T> => {
    const lock = prefix + key;
    const token = randomUUID();
    const deadline = Date.now() + (options?.waitMs ?? lockMs);
    // Shorter than the store's own if asked, never longer (a dead holder frees it as soon as any).
    const life = Math.min(options?.lockMs ?? lockMs, lockMs);
    if (!(life > 0)) throw new RangeError(`A lock's life must be positive; got ${life} ms`);
    while ((await redis.set(lock, token, { condition: 'NX', expiration: { type: 'PX', value: life } })) !== 'OK') {
      if (options?.waitMs !== undefined && Date.now() >= deadline) throw new LockBusy(key);
      if (Date.now() > deadline) throw new StoreError(`Could not lock ${key} in Redis within ${lockMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Renewed for ten lives at most: work stuck for good (a call that never settles) must not hold
    // every replica off forever; past that the lock lapses as if its holder had died. The renewal
    // is a lease loop on the clock passed in (a test drives it); its end is whichever comes first
    // of thirty renewals (one every third of a life) and ten lives of the wall time Redis expires
    // keys by, so neither a clock moved ahead nor timers running late on a busy machine move it.
    let renewals = 0;
    const renewUntil = performance.now() + 10 * life;
    const renewal = every(clock, life / 3, () => {
      renewals += 1;
      if (renewals > 30 || performance.now() > renewUntil) {
        renewal.stop();
        logger.error('Work held a Redis lock ten times its life; no longer renewed', { key });
        return;
      }
      void run(RENEW, [lock], [token, String(life)])
        .then((renewed) => {
          if (renewed !== 1) logger.warn('A Redis lock lapsed while its work ran', { key });
        })
        .catch(() => undefined);
    });
    try {
      return await work();
    } finally {
      renewal.stop();
      await run(UNLOCK, [lock], [token]).catch(() => undefined);
    }
  };
}

/** Runs scripts by their SHA1 (every script here: claims, locks, the budget), sending the text only when Redis has not seen it. */
function scriptRunner(redis: RedisCommands): SharedRedis['runScript'] {
  const shas = new Map<string, string>();
  return async (script, keys, args) => {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return await redis.evalSha(sha, { keys, arguments: args });
    } catch (error) {
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return redis.eval(script, { keys, arguments: args });
    }
  };
}

/** A connection error no reconnect mends: a refused password, an untrusted certificate. */
const isLasting = (cause: unknown): boolean => redisRefusal(cause) !== undefined;

/**
 * How long a command waits to be sent while the client reconnects (node-redis's `timeout` counts
 * until the command is written; an answer is not timed).
 */
const OFFLINE_WAIT_MS = 1_000;

/** The wait before reconnect number `retries` + 1: 200 ms doubling, to 2 s at most. */
const reconnectDelayMs = (retries: number): number => Math.min(200 * 2 ** retries, 2_000);

interface ConnectionEvents {
  on(event: 'ready' | 'reconnecting', listener: () => void): unknown;
}

/**
 * Whether an outage is to be waited out: once Redis has answered, until a refusal no reconnect
 * mends (after which a use connects again as a start does, giving up after three tries). One log
 * line when the connection drops and one when it is back, however many reconnects between.
 */
function connectionWatch(client: ConnectionEvents, where: string, logger: Logger) {
  let answered = false;
  let lostAt: number | undefined;
  client.on('reconnecting', () => {
    if (!answered || lostAt !== undefined) return;
    lostAt = Date.now();
    logger.warn('Lost Redis; reconnecting (a store command waits up to 1 s for it, then fails)', { redis: where });
  });
  client.on('ready', () => {
    answered = true;
    if (lostAt === undefined) return;
    logger.info('Redis is back', { redis: where, awayMs: Date.now() - lostAt });
    lostAt = undefined;
  });
  return {
    waitsOutages: () => answered,
    /** A refusal no reconnect mends: said once by a replica that was running, not at each use after. */
    refused: (cause: unknown) => {
      if (answered) {
        logger.error('Redis refused the connection; the store tries again at its next use', {
          redis: where,
          error: cause,
        });
      }
      answered = false;
    },
  };
}

/** The client's commands, each connecting it again first if a refusal closed it (as keyv does for values). */
function reopening(client: RedisCommands, open: () => Promise<unknown>): RedisCommands {
  return {
    set: async (key, value, options) => {
      await open();
      return client.set(key, value, options);
    },
    get: async (key) => {
      await open();
      return client.get(key);
    },
    eval: async (script, options) => {
      await open();
      return client.eval(script, options);
    },
    evalSha: async (sha, options) => {
      await open();
      return client.evalSha(sha, options);
    },
  };
}

interface StartClient {
  connect(): Promise<unknown>;
  get(key: string): Promise<string | null>;
  isReady: boolean;
}

/** How long a start whose read was lost with its connection waits for the reconnect's verdict. */
const START_VERDICT_MS = 3_000;

/**
 * The start's one read, failing with what Redis refused however the refusal is timed: while
 * connecting (the connect fails with it, after three tries at most for an outage), in answer to the
 * read (`NOAUTH`), or on the reconnect after the read was lost with its connection (a password
 * rotated just then). In that last order the read's own error (a closed socket) says nothing, so
 * the start waits for the reconnect: refused, it fails with the refusal; back, it reads again.
 */
async function probeAtStart(client: StartClient, key: string, refusal: () => unknown): Promise<void> {
  await client.connect();
  try {
    await client.get(key);
  } catch (error) {
    if (redisRefusal(error)) throw error;
    const deadline = Date.now() + START_VERDICT_MS;
    while (refusal() === undefined && !client.isReady && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (refusal() !== undefined) throw refusal();
    if (!client.isReady) throw error;
    await client.get(key);
  }
}

/**
 * `redis[s]://[user:password@]host:port[/db]`: keyv on @keyv/redis for values, Redis itself for
 * claims and locks, every key under `namespace:` so deployments sharing a Redis share nothing.
 */
export async function openRedis(
  url: string,
  options: { logger?: Logger; namespace: string; lockMs?: number; clock?: Clock },
): Promise<StoreHandle> {
  const logger = options.logger ?? silentLogger;
  // Parsed once, here: the client gets fields, never the URL, so no library re-parses (or logs) it.
  const connection = parseRedisUrl(url);
  const where = describeRedis(connection);
  // Until Redis has answered, one that is not there fails the start in seconds. After that, an
  // outage is waited out: reconnects go on (a failover, a restart), and a command waits for one
  // at most a second (a restart's blip) before it fails, so a person is told and nothing hangs.
  let outages: ReturnType<typeof connectionWatch> | undefined;
  // The last refusal no reconnect mends, whenever it came: the start's verdict if its read was lost.
  let refused: unknown;
  const adapter = new KeyvRedis(
    {
      ...(connection.username ? { username: connection.username } : {}),
      ...(connection.password ? { password: connection.password } : {}),
      database: connection.db,
      commandOptions: { timeout: OFFLINE_WAIT_MS },
      socket: {
        host: connection.host,
        port: connection.port,
        ...(connection.tls ? { tls: true as const, ...connection.tls } : {}),
        connectTimeout: 3_000,
        reconnectStrategy: (retries: number, cause: unknown) => {
          // A refused password or an untrusted certificate: no retry mends it, so no wait for one.
          if (isLasting(cause)) {
            refused = cause;
            outages?.refused(cause);
            return cause as Error;
          }
          // Before Redis has answered: three tries (1.4 s); after, for as long as it is away.
          if (retries >= 3 && !outages?.waitsOutages()) return new Error('Redis did not answer', { cause });
          return reconnectDelayMs(retries);
        },
      },
    },
    { throwOnConnectError: true, throwOnErrors: true },
  );
  const client = adapter.client as unknown as RedisCommands & ConnectionEvents & StartClient;
  outages = connectionWatch(client, where, logger);
  const redis = reopening(client, () => adapter.getClient());
  const wrap = <T>(what: string, work: () => Promise<T>) =>
    work().catch((error: unknown) => {
      logger.error('Redis failed', { operation: what, error });
      throw new StoreError(`Redis could not ${what}`, { cause: error });
    });
  const runScript = scriptRunner(redis);
  const prefix = `${options.namespace}:`;
  const raw = new RedisClaims(redis, runScript, prefix);
  const claims: ClaimStore = {
    claim: (...args) => wrap('claim', () => raw.claim(...args)),
    settle: (...args) => wrap('settle a claim', () => raw.settle(...args)),
    get: (...args) => wrap('read a claim', () => raw.get(...args)),
    release: (...args) => wrap('release a claim', () => raw.release(...args)),
    takeOver: (...args) => wrap('take over a claim', () => raw.takeOver(...args)),
    prune: () => raw.prune(),
  };
  const lock = redisLock(
    redis,
    runScript,
    `${prefix}lock:`,
    options.lockMs ?? LOCK_MS,
    logger,
    options.clock ?? systemClock,
  );
  const keyValue = keyValueStore(adapter, { namespace: options.namespace, logger, lock, sectionLock: lock });
  // Fail at start, with the address and what Redis refused, rather than on the first command.
  try {
    await probeAtStart(client, `${prefix}health:probe`, () => refused);
  } catch (error) {
    await adapter.disconnect(true).catch(() => undefined);
    throw redisStartError(where, error);
  }
  return {
    keyValue,
    claims,
    description: `${where} (namespace ${options.namespace})`,
    // With Redis there, QUIT after what is in flight; without it, a graceful close would wait for
    // an answer to a command still queued, so the connection is dropped.
    close: () => (client.isReady ? keyValue.close() : adapter.disconnect(true)),
    shared: {
      runScript: (script, keys, args) => wrap('run a script', () => runScript(script, keys, args)),
      connection,
      namespace: options.namespace,
    },
  };
}
