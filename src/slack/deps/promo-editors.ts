import type { webApi } from '@slack/bolt';
import type { LRUCache } from 'lru-cache';
import type { Logger } from '../../logger.js';
import type { Clock } from '../../time/clock.js';
import { ttlCache } from '../../ttl-cache.js';

/**
 * Who may change promo codes: user ids listed in PROMO_EDITORS, and members of the user groups
 * listed there (looked up with `usergroups.users.list`, cached for a minute).
 */
export class PromoEditors {
  readonly #users: Set<string>;
  readonly #groups: string[];
  readonly #logger: Logger;
  readonly #cache: LRUCache<string, Set<string>>;
  /** Each group's members as last read, kept past the cache's TTL for `everyone()`. */
  readonly #lastRead = new Map<string, Set<string>>();

  constructor(ids: readonly string[], options: { logger: Logger; clock: Clock; groupTtlMs?: number }) {
    this.#users = new Set(ids.filter((id) => !id.startsWith('S')));
    this.#groups = ids.filter((id) => id.startsWith('S'));
    this.#logger = options.logger;
    this.#cache = ttlCache({ max: 100, ttlMs: options.groupTtlMs ?? 60_000, clock: options.clock });
  }

  async allows(userId: string, client: webApi.WebClient): Promise<boolean> {
    if (this.#users.has(userId)) return true;
    for (const group of this.#groups) {
      const members = await this.#members(group, client);
      if (members.has(userId)) return true;
    }
    return false;
  }

  /**
   * Every editor's user id, sorted, each user group read afresh (the cache `allows` reads is
   * refreshed with it). A group that cannot be read counts with the members it had when last read
   * (none if never): a hiccup neither drops its people nor adds anyone.
   */
  async everyone(client: webApi.WebClient): Promise<string[]> {
    const ids = new Set(this.#users);
    for (const group of this.#groups) {
      const members = (await this.#read(group, client)) ?? this.#lastRead.get(group) ?? new Set<string>();
      for (const id of members) ids.add(id);
    }
    return [...ids].sort();
  }

  async #members(group: string, client: webApi.WebClient): Promise<Set<string>> {
    return this.#cache.get(group) ?? (await this.#read(group, client)) ?? new Set();
  }

  async #read(group: string, client: webApi.WebClient): Promise<Set<string> | undefined> {
    try {
      const result = await client.usergroups.users.list({ usergroup: group });
      const members = new Set(result.users ?? []);
      this.#cache.set(group, members);
      this.#lastRead.set(group, members);
      return members;
    } catch (error) {
      // Fail closed: without the group's members nobody gets in through it.
      this.#logger.warn('Could not read a promo-editor user group', { group, error });
      return undefined;
    }
  }
}
