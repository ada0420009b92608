import type { Logger } from '../logger.js';
import { quantityRows } from '../reports/report-figures.js';
import type { ReportReadSubscription } from '../reports/report-reads.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { normaliseApiId } from '../ticketing/ids.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { isPromoCode } from './promo-codes.js';

/** A promo code as a report named it: its code (as spelled there), its id, and when it was last seen. */
export interface KnownPromoCode {
  code: string;
  id: string;
  seenAt: number;
}

export interface KnownPromoCodesOptions {
  store: KeyValueStore;
  clock: Clock;
  logger: Logger;
  /** Most codes kept for one event (the least recently seen go first). @default 100 */
  maxPerEvent?: number;
  /** How long a code no report names again is kept. @default 30 days */
  ttlMs?: number;
}

const key = (eventId: string) => `promo-codes:${normaliseApiId('event', eventId)}`;

/**
 * Each event's code → id pairs from every report read. A code's id does not change, so a code
 * seen in any earlier report resolves later with no report call, whichever replica read it (the
 * pairs live in the store). Bounded per event, and forgotten when no report has named them for
 * `ttlMs`.
 */
export class KnownPromoCodes {
  readonly #store: KeyValueStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #max: number;
  readonly ttlMs: number;
  /** Writes under way in this process, by event: a lookup right after a report waits for them. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(options: KnownPromoCodesOptions) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#max = options.maxPerEvent ?? 100;
    this.ttlMs = options.ttlMs ?? 30 * 24 * 3_600_000;
  }

  /**
   * Remembers the codes of every report read from now on, so a code needs no report later;
   * `track` keeps shutdown waiting for the write.
   */
  rememberEachRead(reads: ReportReadSubscription, track: (write: Promise<void>) => Promise<void>): void {
    reads.onReportRead((eventId, report) => void track(this.remember(eventId, report)));
  }

  /** Remembers the codes a report names with an id; never throws (a failure is logged). */
  remember(eventId: string, report: EventReport): Promise<void> {
    const now = this.#clock.now();
    const seen: KnownPromoCode[] = [];
    for (const row of quantityRows(report)) {
      // A row labelled by its name or its id is no code a person types.
      if (row.id === undefined || !isPromoCode(row.label)) continue;
      seen.push({ code: row.label, id: normaliseApiId('promo', row.id), seenAt: now });
    }
    if (seen.length === 0) return Promise.resolve();
    const eventKey = key(eventId);
    const before = this.#writing.get(eventKey) ?? Promise.resolve();
    const write = before
      .then(() =>
        this.#store.exclusive(eventKey, async () => {
          const merged = new Map<string, KnownPromoCode>();
          for (const each of [...seen, ...this.#fresh(await this.#store.get<unknown>(eventKey))]) {
            const code = each.code.toLowerCase();
            if (!merged.has(code)) merged.set(code, each);
          }
          const kept = [...merged.values()].sort((a, b) => b.seenAt - a.seenAt).slice(0, this.#max);
          await this.#store.set(eventKey, kept, this.ttlMs);
        }),
      )
      .catch((error: unknown) => this.#logger.warn('Could not remember the promo codes of a report', { error }))
      .finally(() => {
        if (this.#writing.get(eventKey) === write) this.#writing.delete(eventKey);
      });
    this.#writing.set(eventKey, write);
    return write;
  }

  /** The codes known for the event, most recently seen first. */
  async codes(eventId: string): Promise<KnownPromoCode[]> {
    const eventKey = key(eventId);
    await this.#writing.get(eventKey);
    return this.#fresh(await this.#store.get<unknown>(eventKey));
  }

  /** The code's id, if a report named it (any case). */
  async idOf(eventId: string, code: string): Promise<KnownPromoCode | undefined> {
    const wanted = code.toLowerCase();
    return (await this.codes(eventId)).find((each) => each.code.toLowerCase() === wanted);
  }

  /** The code a report named for this id. */
  async codeOf(eventId: string, promoId: string): Promise<string | undefined> {
    const id = normaliseApiId('promo', promoId);
    return (await this.codes(eventId)).find((each) => each.id === id)?.code;
  }

  /** The stored list, well-formed entries seen within the TTL only (it is outside input to this code). */
  #fresh(value: unknown): KnownPromoCode[] {
    if (!Array.isArray(value)) return [];
    const oldest = this.#clock.now() - this.ttlMs;
    return value.filter(
      (each): each is KnownPromoCode =>
        typeof each === 'object' &&
        each !== null &&
        typeof each.code === 'string' &&
        typeof each.id === 'string' &&
        typeof each.seenAt === 'number' &&
        each.seenAt > oldest,
    );
  }
}
