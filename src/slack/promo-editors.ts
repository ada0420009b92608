import type { webApi } from '@slack/bolt';
import type { LRUCache } from 'lru-cache';
import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { ttlCache } from '../ttl-cache.js';

/**
 * Who may change promo codes: user ids listed in PROMO_EDITORS, and members of the user groups
 * listed there (looked up with `usergroups.users.list`, cached for a minute).
 */
export class PromoEditors {
  readonly #users: Set<string>;
  readonly #groups: string[];
  readonly #logger: Logger;
  readonly #cache: LRUCache<string, Set<string>>;

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

  async #members(group: string, client: webApi.WebClient): Promise<Set<string>> {
    const cached = this.#cache.get(group);
    if (cached) return cached;
    try {
      const result = await client.usergroups.users.list({ usergroup: group });
      const members = new Set(result.users ?? []);
      this.#cache.set(group, members);
      return members;
    } catch (error) {
      // Fail closed: without the group's members nobody gets in through it.
      this.#logger.warn('Could not read a promo-editor user group', { group, error });
      return new Set();
    }
  }
}
