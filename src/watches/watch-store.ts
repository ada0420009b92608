import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { type EventCheck, eventCheckSchema, type Watch, watchKey, watchSchema } from './watch.js';

const INDEX = 'watch:index';
const checkKey = (eventId: string) => `watch-check:${eventId}`;
const failureKey = (eventId: string) => `watch-check-failed:${eventId}`;

/**
 * Watches and the last check of each watched event, in the store every replica shares: one key a
 * watch, an index of them (keyv cannot list keys), changed only through the store's
 * read-modify-write so a failed read never empties it. A record that no longer parses is skipped.
 */
export class WatchStore {
  readonly #store: KeyValueStore;
  readonly #logger: Logger;

  constructor(store: KeyValueStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  async get(channel: string, eventId: string): Promise<Watch | undefined> {
    return this.#parse(await this.#store.get(watchKey(channel, eventId)));
  }

  /** Every watch; records that no longer parse are logged and left out. */
  async all(): Promise<Watch[]> {
    const keys = (await this.#store.get<string[]>(INDEX)) ?? [];
    const found: Watch[] = [];
    for (const key of keys) {
      const watch = this.#parse(await this.#store.get(key));
      if (watch) found.push(watch);
      else this.#logger.warn('Skipped a stored watch that does not parse', { key });
    }
    return found;
  }

  /**
   * Read-modify-write of one watch under its key's lock (across replicas on Redis): `change` sees
   * the stored watch (undefined when none) and returns the new one, or undefined to leave it.
   */
  async update(
    channel: string,
    eventId: string,
    change: (current: Watch | undefined) => Watch | undefined,
  ): Promise<Watch | undefined> {
    const key = watchKey(channel, eventId);
    let changed: Watch | undefined;
    await this.#store.update<unknown>(key, (stored) => {
      changed = change(this.#parse(stored));
      return changed;
    });
    if (changed) {
      await this.#store.update<string[]>(INDEX, (keys = []) => (keys.includes(key) ? undefined : [...keys, key]));
    }
    return changed;
  }

  /**
   * Removes a watch: its value under its key's lock, so an update that read it before cannot write
   * it back (an update after sees none and leaves it gone), then its index entry.
   */
  async remove(channel: string, eventId: string): Promise<boolean> {
    const key = watchKey(channel, eventId);
    const removed = await this.#store.exclusive(key, () => this.#store.delete(key));
    await this.#store.update<string[]>(INDEX, (keys = []) =>
      keys.includes(key) ? keys.filter((k) => k !== key) : undefined,
    );
    return removed;
  }

  async lastCheck(eventId: string): Promise<EventCheck | undefined> {
    const parsed = eventCheckSchema.safeParse(await this.#store.get(checkKey(eventId)));
    return parsed.success ? (parsed.data as EventCheck) : undefined;
  }

  /** Records a check, unless one read later is already recorded; returns what is recorded now. */
  async recordCheck(check: EventCheck): Promise<EventCheck> {
    let recorded = check;
    await this.#store.update<unknown>(checkKey(check.eventId), (stored) => {
      const parsed = eventCheckSchema.safeParse(stored);
      if (parsed.success && parsed.data.checkedAt >= check.checkedAt) {
        recorded = parsed.data as EventCheck;
        return undefined;
      }
      return check;
    });
    return recorded;
  }

  async forgetCheck(eventId: string): Promise<void> {
    await this.#store.delete(checkKey(eventId));
    await this.#store.delete(failureKey(eventId));
  }

  /** When a check of the event last failed (its report could not be fetched), since its last good one. */
  async lastFailure(eventId: string): Promise<number | undefined> {
    const at = await this.#store.get<unknown>(failureKey(eventId));
    return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
  }

  async recordFailure(eventId: string, at: number): Promise<void> {
    await this.#store.set(failureKey(eventId), at);
  }

  async forgetFailure(eventId: string): Promise<void> {
    await this.#store.delete(failureKey(eventId));
  }

  #parse(value: unknown): Watch | undefined {
    if (value === undefined) return undefined;
    const parsed = watchSchema.safeParse(value);
    return parsed.success ? (parsed.data as Watch) : undefined;
  }
}
