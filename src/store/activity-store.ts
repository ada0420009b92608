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

export interface RecentActivity {
  reports: ReportRecord[];
  promoChanges: PromoChangeRecord[];
}

const PER_USER = 20;
const AUDIT = 1_000;

/**
 * Audit trail and per-user history. Each list is updated with the store's read-modify-write of
 * one key, so two commands appending at once both land; a failed read throws instead of
 * becoming an empty list that the write would put over the real one.
 */
export class ActivityStore {
  readonly #store: KeyValueStore;

  constructor(store: KeyValueStore) {
    this.#store = store;
  }

  async recordPromoChange(record: PromoChangeRecord): Promise<void> {
    await this.#append('audit:promo', record, AUDIT);
    await this.#append(`user:${record.userId}:promo`, record, PER_USER);
  }

  async recordReport(record: ReportRecord): Promise<void> {
    await this.#append(`user:${record.userId}:reports`, record, PER_USER);
  }

  /** The user's latest reports and promo changes, newest first. */
  async recent(userId: string): Promise<RecentActivity> {
    const [reports, promoChanges] = await Promise.all([
      this.#list<ReportRecord>(`user:${userId}:reports`),
      this.#list<PromoChangeRecord>(`user:${userId}:promo`),
    ]);
    return { reports, promoChanges };
  }

  /** Every promo change, newest first (the latest 1000). */
  promoAudit(): Promise<PromoChangeRecord[]> {
    return this.#list<PromoChangeRecord>('audit:promo');
  }

  async #list<T>(key: string): Promise<T[]> {
    const value = await this.#store.get<unknown>(key);
    return Array.isArray(value) ? (value as T[]) : [];
  }

  async #append<T>(key: string, record: T, keep: number): Promise<void> {
    await this.#store.update<T[]>(key, (list) => [record, ...(Array.isArray(list) ? list : [])].slice(0, keep));
  }
}
