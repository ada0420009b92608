import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { type Subscription, subscriptionKey, subscriptionSchema } from './subscription.js';

const INDEX = 'digest:channels';

/**
 * Subscriptions: one record a subscription key plus an index of keys (keyv cannot list keys). A
 * key is the conversation for its event digest, `sales~<conversation>` for its sales digest (see
 * `subscriptionKey`). The index is changed only through the store's read-modify-write, so a
 * failed read never empties it.
 */
export class SubscriptionStore {
  readonly #store: KeyValueStore;
  readonly #logger: Logger;
  #lock: Promise<unknown> = Promise.resolve();

  constructor(store: KeyValueStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  async get(key: string): Promise<Subscription | undefined> {
    const parsed = subscriptionSchema.safeParse(await this.#store.get(`digest:${key}`));
    if (!parsed.success) return undefined;
    return parsed.data as Subscription;
  }

  /** Every stored subscription; a record that no longer parses is logged and left out. */
  async all(): Promise<Subscription[]> {
    const keys = (await this.#store.get<string[]>(INDEX)) ?? [];
    const found: Subscription[] = [];
    for (const key of keys) {
      const subscription = await this.get(key);
      if (subscription) found.push(subscription);
      else this.#logger.warn('Skipped a stored digest subscription that does not parse', { key });
    }
    return found;
  }

  put(subscription: Subscription): Promise<void> {
    const key = subscriptionKey(subscription);
    return this.#locked(async () => {
      await this.#store.set(`digest:${key}`, subscription);
      await this.#store.update<string[]>(INDEX, (keys = []) => (keys.includes(key) ? undefined : [...keys, key]));
    });
  }

  /**
   * Applies `change` to the stored subscription, if there still is one: a read-modify-write under
   * the key's lock, so a replica recording a run never undoes another's change of the same channel.
   */
  async update(key: string, change: (subscription: Subscription) => Subscription): Promise<Subscription | undefined> {
    let changed: Subscription | undefined;
    await this.#locked(() =>
      this.#store.update<unknown>(`digest:${key}`, (stored) => {
        const parsed = subscriptionSchema.safeParse(stored);
        if (!parsed.success) return undefined;
        changed = change(parsed.data as Subscription);
        return changed;
      }),
    );
    return changed;
  }

  remove(key: string): Promise<boolean> {
    return this.#locked(async () => {
      await this.#store.update<string[]>(INDEX, (keys = []) =>
        keys.includes(key) ? keys.filter((id) => id !== key) : undefined,
      );
      return this.#store.delete(`digest:${key}`);
    });
  }

  #locked<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#lock.catch(() => undefined).then(work);
    this.#lock = next;
    return next;
  }
}
