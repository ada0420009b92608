import type { Keyv } from 'keyv';

/** One promo change made from Slack, as the audit trail keeps it. */
export interface PromoChangeRecord {
  at: string;
  userId: string;
  channelId: string;
  eventId: string;
  promoId: string;
  quantity: number;
  outcome: 'updated' | 'failed';
  /** The reason, when the change failed (a user-facing sentence, never a secret). */
  error?: string;
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
 * Audit trail and per-user history on top of keyv. Lists are read-modify-written under a per-key
 * lock, which keeps one process consistent; several processes on one SQLite file could interleave.
 */
export class ActivityStore {
  readonly #keyv: Keyv;
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
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
    const value: unknown = await this.#keyv.get(key);
    return Array.isArray(value) ? (value as T[]) : [];
  }

  #append<T>(key: string, record: T, keep: number): Promise<void> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const list = await this.#list<T>(key);
        await this.#keyv.set(key, [record, ...list].slice(0, keep));
      });
    this.#locks.set(key, next);
    void next.finally(() => {
      if (this.#locks.get(key) === next) this.#locks.delete(key);
    });
    return next;
  }
}
