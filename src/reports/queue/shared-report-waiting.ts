import { randomUUID } from 'node:crypto';
import { TooManyReportsWaitingError, type WaitingReport } from '../../ticketing/errors.js';
import type { ScriptRunner } from '../../ticketing/shared-budget.js';
import { limitFor, type RequesterKind, type WaitingLimits, waitingLimits } from './report-waiting.js';

/** A report counted among those its requester waits for, until it arrives (`release`). */
export interface ReportHold {
  key: string;
  member: string;
}

/*
 * `ReportWaiting`'s rule for every replica: a requester's reports waiting are a sorted set of holds
 * (member: JSON {t: token, e: event, l: label}; score: when it lapses, should its release never
 * come). Refused when they wait for `limit` other events already. KEYS: the requester's set.
 * ARGV: limit, the new hold, its event, how long a hold is kept (ms). Returns {1} (held), or {0,
 * the holds that wait}. Times are Redis `TIME`.
 */
const ADMIT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local limit, member, eventId, keepMs = tonumber(ARGV[1]), ARGV[2], ARGV[3], tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local seen, distinct, listed = {}, 0, {}
for _, held in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local ok, decoded = pcall(cjson.decode, held)
  local event = ok and type(decoded) == 'table' and decoded.e or held
  if not seen[event] then
    seen[event] = true
    distinct = distinct + 1
    table.insert(listed, held)
  end
end
if not seen[eventId] and distinct >= limit then return {0, unpack(listed)} end
redis.call('ZADD', KEYS[1], now + keepMs, member)
if redis.call('PTTL', KEYS[1]) < keepMs then redis.call('PEXPIRE', KEYS[1], keepMs) end
return {1}
`;

export interface SharedReportWaitingOptions {
  run: ScriptRunner;
  /** The key of a requester's holds (in the queue's hash tag). */
  keyOf(requester: string): string;
  limits?: WaitingLimits | undefined;
  /** How long a hold whose release never comes (its replica died) still counts: as long as a request may wait. */
  keepMs: number;
}

/** The reports each requester waits for, across replicas (`ReportWaiting`'s rule, in Redis). */
export class SharedReportWaiting {
  readonly #run: ScriptRunner;
  readonly #keyOf: (requester: string) => string;
  readonly #limits: Required<WaitingLimits>;
  readonly #keepMs: number;

  constructor(options: SharedReportWaitingOptions) {
    this.#run = options.run;
    this.#keyOf = options.keyOf;
    this.#limits = waitingLimits(options.limits);
    this.#keepMs = Math.max(1, Math.ceil(options.keepMs));
  }

  /** Counts `report` for `requester`, or throws `TooManyReportsWaitingError` (nothing counted). */
  async admit(requester: string, kind: RequesterKind | undefined, report: WaitingReport): Promise<ReportHold> {
    const key = this.#keyOf(requester);
    const limit = limitFor(this.#limits, kind);
    const member = JSON.stringify({ t: randomUUID(), e: report.eventId, ...(report.label ? { l: report.label } : {}) });
    const [admitted, ...listed] = (await this.#run(
      ADMIT,
      [key],
      [String(limit), member, report.eventId, String(this.#keepMs)],
    )) as [number, ...string[]];
    if (Number(admitted) === 1) return { key, member };
    throw new TooManyReportsWaitingError({ limit, requesterKind: kind ?? 'person', waiting: listed.map(waitingOf) });
  }

  /** The report arrived (or will not): it no longer counts. */
  async release(hold: ReportHold): Promise<void> {
    await this.#run(RELEASE, [hold.key], [hold.member]);
  }
}

const RELEASE = `return redis.call('ZREM', KEYS[1], ARGV[1])`;

function waitingOf(member: string): WaitingReport {
  try {
    const held = JSON.parse(member) as { e?: unknown; l?: unknown };
    const eventId = typeof held.e === 'string' ? held.e : member;
    return typeof held.l === 'string' ? { eventId, label: held.l } : { eventId };
  } catch {
    return { eventId: member };
  }
}
