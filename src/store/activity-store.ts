import type { KeyValueStore } from './key-value-store.js';

/** How a promo change asked for from Slack ended. */
export type PromoChangeOutcome =
  /** The service confirmed the new quantity. */
  | 'updated'
  /** The service refused it or could not be reached before it was sent: certainly not applied. */
  | 'failed'
  /** Sent, but no answer ever came: it may or may not have been applied. */
  | 'unknown'
  /** Refused before anything was sent (a confirmation unknown, used, expired or someone else's; not an editor). */
  | 'refused';

/** Where a promo change was asked for, besides Slack itself (the command, the form, the buttons). */
export type PromoChangeSource = 'workflow';

/** One promo change made (or attempted) from Slack, as the audit trail keeps it. */
export interface PromoChangeRecord {
  at: string;
  userId: string;
  /** Where it was asked for; '' for a workflow step (it has no channel). */
  channelId: string;
  eventId: string;
  promoId: string;
  quantity: number;
  /** The quantity before, when a report read for the change named it. */
  previousQuantity?: number;
  outcome: PromoChangeOutcome;
  /** Why, when it did not go through (a user-facing sentence or a refusal code, never a secret). */
  error?: string;
  /** The pending change this record is about. */
  changeId?: string;
  /**
   * `workflow`: asked for by a Workflow Builder step. Absent: asked for in Slack itself, with a
   * confirmation, as every record stored before workflow steps was.
   */
  via?: PromoChangeSource;
  /** The Workflow Builder step run (its `function_execution_id`) that asked for it. */
  executionId?: string;
}

export interface ReportRecord {
  at: string;
  userId: string;
  eventId: string;
  eventName?: string;
}

/** One MCP tool call, audited: who (the token's person), which tool, what came of it. */
export interface ToolCallRecord {
  at: string;
  userId: string;
  tool: string;
  /** `ok`, `error` (answered as a tool error), `limited` (the person's call limit). */
  outcome: 'ok' | 'error' | 'limited';
  /** The event it was about, when one was named. */
  eventId?: string | undefined;
}

/** MCP tool calls kept in the audit, newest first. */
const TOOL_CALLS_KEPT = 5_000;

export interface RecentActivity {
  reports: ReportRecord[];
  promoChanges: PromoChangeRecord[];
}

const PER_USER = 20;
/** Refusals kept (a loop of them must never push a real change out: they are kept apart). @default 1000 */
const REFUSALS = 1_000;

/** How long the promo changes are kept (`PROMO_AUDIT_KEEP`): at least this long, or the newest `count`. */
export type AuditKeep = { days: number } | { count: number };

export const DEFAULT_AUDIT_KEEP: AuditKeep = { days: 90 };

/** Changes kept however old, so a quiet organization still sees its last ones. */
const AT_LEAST = 1_000;

export interface ActivityStoreOptions {
  /** How long promo changes are kept. @default 90 days */
  keep?: AuditKeep;
  /** Refusals kept, the newest. @default 1000 */
  refusalsKept?: number;
  /** Changes kept whatever their age, the newest. @default 1000 */
  changesKeptAtLeast?: number;
}
const DAY_MS = 86_400_000;

/**
 * Audit trail and per-user history. Each list is updated with the store's read-modify-write of
 * one key, so two commands appending at once both land; a failed read throws instead of
 * becoming an empty list that the write would put over the real one.
 */
export class ActivityStore {
  readonly #store: KeyValueStore;
  readonly #keep: AuditKeep;
  readonly #refusals: number;
  readonly #atLeast: number;

  constructor(store: KeyValueStore, options: ActivityStoreOptions = {}) {
    this.#store = store;
    this.#keep = options.keep ?? DEFAULT_AUDIT_KEEP;
    this.#refusals = options.refusalsKept ?? REFUSALS;
    this.#atLeast = options.changesKeptAtLeast ?? AT_LEAST;
  }

  /**
   * Audits a promo change. Changes (updated, failed, unknown) are kept for `PROMO_AUDIT_KEEP`;
   * refusals (not an editor, a confirmation expired) apart, the newest 1,000: someone running a
   * workflow in a loop pushes out only their own refusals, never a change that was made.
   */
  async recordPromoChange(record: PromoChangeRecord): Promise<void> {
    if (record.outcome === 'refused') await this.#append('audit:promo-refusals', record, this.#refusals);
    else
      await this.#store.update<PromoChangeRecord[]>('audit:promo', (list) =>
        this.#kept([record, ...(Array.isArray(list) ? list : [])]),
      );
    await this.#append(`user:${record.userId}:promo`, record, PER_USER);
  }

  /** The changes to keep, newest first: by count, or those younger than the days (and at least the newest 1,000). */
  #kept(list: PromoChangeRecord[]): PromoChangeRecord[] {
    const keep = this.#keep;
    if ('count' in keep) return list.slice(0, keep.count);
    const newest = Date.parse(list[0]?.at ?? '');
    return list.filter((record, i) => i < this.#atLeast || !(newest - Date.parse(record.at) > keep.days * DAY_MS));
  }

  async recordReport(record: ReportRecord): Promise<void> {
    await this.#append(`user:${record.userId}:reports`, record, PER_USER);
  }

  /** Audits an MCP tool call (every one, with its person and tool). */
  async recordToolCall(record: ToolCallRecord): Promise<void> {
    await this.#append('audit:mcp', record, TOOL_CALLS_KEPT);
  }

  /** The MCP tool calls kept, newest first. */
  toolCalls(): Promise<ToolCallRecord[]> {
    return this.#list<ToolCallRecord>('audit:mcp');
  }

  /** The user's latest reports and promo changes, newest first. */
  async recent(userId: string): Promise<RecentActivity> {
    const [reports, promoChanges] = await Promise.all([
      this.#list<ReportRecord>(`user:${userId}:reports`),
      this.#list<PromoChangeRecord>(`user:${userId}:promo`),
    ]);
    return { reports, promoChanges };
  }

  /** Every promo change and refusal kept, newest first. */
  async promoAudit(): Promise<PromoChangeRecord[]> {
    const [changes, refusals] = await Promise.all([
      this.#list<PromoChangeRecord>('audit:promo'),
      this.#list<PromoChangeRecord>('audit:promo-refusals'),
    ]);
    // Records of one instant: refusals first (a confirmation refused as used follows its change),
    // each list in the order it was kept in.
    return [...refusals, ...changes]
      .map((record, i) => ({ record, i, at: Date.parse(record.at) || 0 }))
      .sort((a, b) => b.at - a.at || a.i - b.i)
      .map(({ record }) => record);
  }

  async #list<T>(key: string): Promise<T[]> {
    const value = await this.#store.get<unknown>(key);
    return Array.isArray(value) ? (value as T[]) : [];
  }

  async #append<T>(key: string, record: T, keep: number): Promise<void> {
    await this.#store.update<T[]>(key, (list) => [record, ...(Array.isArray(list) ? list : [])].slice(0, keep));
  }
}
