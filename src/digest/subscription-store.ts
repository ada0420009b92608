import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { type Subscription, subscriptionSchema } from './subscription.js';

const INDEX = 'digest:channels';

/**
 * Subscriptions: one key a channel plus an index of channels (keyv cannot list keys). The index
 * is changed only through the store's read-modify-write, so a failed read never empties it.
 */
export class SubscriptionStore {
  readonly #store: KeyValueStore;
  readonly #logger: Logger;
  #lock: Promise<unknown> = Promise.resolve();

  constructor(store: KeyValueStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  async get(channelId: string): Promise<Subscription | undefined> {
    const parsed = subscriptionSchema.safeParse(await this.#store.get(`digest:${channelId}`));
    if (!parsed.success) return undefined;
    return parsed.data as Subscription;
  }

  /** Every stored subscription; a record that no longer parses is logged and left out. */
  async all(): Promise<Subscription[]> {
    const channels = (await this.#store.get<string[]>(INDEX)) ?? [];
    const found: Subscription[] = [];
    for (const channelId of channels) {
      const subscription = await this.get(channelId);
      if (subscription) found.push(subscription);
      else this.#logger.warn('Skipped a stored digest subscription that does not parse', { channelId });
    }
    return found;
  }

  put(subscription: Subscription): Promise<void> {
    return this.#locked(async () => {
      await this.#store.set(`digest:${subscription.channelId}`, subscription);
      await this.#store.update<string[]>(INDEX, (channels = []) =>
        channels.includes(subscription.channelId) ? undefined : [...channels, subscription.channelId],
      );
    });
  }

  /**
   * Applies `change` to the stored subscription, if there still is one: a read-modify-write under
   * the key's lock, so a replica recording a run never undoes another's change of the same channel.
   */
  async update(
    channelId: string,
    change: (subscription: Subscription) => Subscription,
  ): Promise<Subscription | undefined> {
    let changed: Subscription | undefined;
    await this.#locked(() =>
      this.#store.update<unknown>(`digest:${channelId}`, (stored) => {
        const parsed = subscriptionSchema.safeParse(stored);
        if (!parsed.success) return undefined;
        changed = change(parsed.data as Subscription);
        return changed;
      }),
    );
    return changed;
  }

  remove(channelId: string): Promise<boolean> {
    return this.#locked(async () => {
      await this.#store.update<string[]>(INDEX, (channels = []) =>
        channels.includes(channelId) ? channels.filter((id) => id !== channelId) : undefined,
      );
      return this.#store.delete(`digest:${channelId}`);
    });
  }

  #locked<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#lock.catch(() => undefined).then(work);
    this.#lock = next;
    return next;
  }
}
