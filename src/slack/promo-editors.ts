import type { webApi } from '@slack/bolt';
import type { Logger } from '../logger.js';

/**
 * Who may change promo codes: user ids listed in PROMO_EDITORS, and members of the user groups
 * listed there (looked up with `usergroups.users.list`, cached for a minute).
 */
export class PromoEditors {
  readonly #users: Set<string>;
  readonly #groups: string[];
  readonly #logger: Logger;
  readonly #cache = new Map<string, { members: Set<string>; expiresAt: number }>();

  constructor(ids: readonly string[], logger: Logger) {
    this.#users = new Set(ids.filter((id) => !id.startsWith('S')));
    this.#groups = ids.filter((id) => id.startsWith('S'));
    this.#logger = logger;
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
    if (cached && cached.expiresAt > Date.now()) return cached.members;
    try {
      const result = await client.usergroups.users.list({ usergroup: group });
      const members = new Set(result.users ?? []);
      this.#cache.set(group, { members, expiresAt: Date.now() + 60_000 });
      return members;
    } catch (error) {
      // Fail closed: without the group's members nobody gets in through it.
      this.#logger.warn('Could not read a promo-editor user group', { group, error });
      return new Set();
    }
  }
}
