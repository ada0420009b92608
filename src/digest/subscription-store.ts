import type { Keyv } from 'keyv';
import type { Logger } from '../logger.js';
import { type Subscription, subscriptionSchema } from './subscription.js';

const INDEX = 'digest:channels';

/** Subscriptions in keyv: one key a channel plus an index of channels (keyv cannot list keys). */
export class SubscriptionStore {
  readonly #keyv: Keyv;
  readonly #logger: Logger;
  #lock: Promise<unknown> = Promise.resolve();

  constructor(keyv: Keyv, logger: Logger) {
    this.#keyv = keyv;
    this.#logger = logger;
  }

  async get(channelId: string): Promise<Subscription | undefined> {
    const parsed = subscriptionSchema.safeParse(await this.#keyv.get(`digest:${channelId}`));
    if (!parsed.success) return undefined;
    return parsed.data as Subscription;
  }

  /** Every stored subscription; a record that no longer parses is logged and left out. */
  async all(): Promise<Subscription[]> {
    const channels = ((await this.#keyv.get(INDEX)) as string[] | undefined) ?? [];
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
      await this.#keyv.set(`digest:${subscription.channelId}`, subscription);
      const channels = ((await this.#keyv.get(INDEX)) as string[] | undefined) ?? [];
      if (!channels.includes(subscription.channelId))
        await this.#keyv.set(INDEX, [...channels, subscription.channelId]);
    });
  }

  /** Applies `change` to the stored subscription, if there still is one. */
  update(channelId: string, change: (subscription: Subscription) => Subscription): Promise<Subscription | undefined> {
    return this.#locked(async () => {
      const current = await this.get(channelId);
      if (!current) return undefined;
      const next = change(current);
      await this.#keyv.set(`digest:${channelId}`, next);
      return next;
    });
  }

  remove(channelId: string): Promise<boolean> {
    return this.#locked(async () => {
      const existed = await this.#keyv.delete(`digest:${channelId}`);
      const channels = ((await this.#keyv.get(INDEX)) as string[] | undefined) ?? [];
      await this.#keyv.set(
        INDEX,
        channels.filter((id) => id !== channelId),
      );
      return existed;
    });
  }

  #locked<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#lock.catch(() => undefined).then(work);
    this.#lock = next;
    return next;
  }
}
