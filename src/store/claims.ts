/** Where one claimed piece of work stands: in progress, finished, or failed and open to a retry. */
export type ClaimState = 'claimed' | 'done' | 'failed';

export interface Claim {
  owner: string;
  state: ClaimState;
  at: number;
}

/**
 * Claims a key once, atomically, across restarts and processes sharing the store: the first
 * `claim` wins and every later one sees the owner. Work is claimed through `ClaimedWork`
 * (`claimed-work.ts`: watch checks, cards, alerts and summaries, digests, the catalog's crawl);
 * workflow runs and promo confirmations claim their key directly, once.
 */
export interface ClaimStore {
  claim(key: string, owner: string, at: number): Promise<boolean>;
  settle(key: string, owner: string, state: Exclude<ClaimState, 'claimed'>, at: number): Promise<void>;
  get(key: string): Promise<Claim | undefined>;
  /** Forgets a claim its owner did not carry out, so the work may be tried again. */
  release(key: string, owner: string): Promise<void>;
  /**
   * Takes over a claim exactly as `expected` last saw it (a failed attempt, or one whose owner
   * crashed): true for one caller only, as if it had claimed the key first.
   */
  takeOver(key: string, expected: Claim, owner: string, at: number): Promise<boolean>;
  /** Forgets claims last touched before `before` (clock ms); returns how many. */
  prune(before: number): Promise<number>;
}

type Query = (sql: string, ...params: unknown[]) => Promise<unknown[]>;

/** Claims in their own SQLite table: `INSERT OR IGNORE` on a primary key is the atomic step. */
export class SqliteClaims implements ClaimStore {
  readonly #ready: Promise<unknown>;
  readonly #query: Query;

  constructor(query: Query) {
    this.#query = query;
    this.#ready = query(
      'CREATE TABLE IF NOT EXISTS eventops_claims(key VARCHAR(255) PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL, at INTEGER NOT NULL)',
    );
  }

  async claim(key: string, owner: string, at: number): Promise<boolean> {
    await this.#ready;
    await this.#query(
      "INSERT OR IGNORE INTO eventops_claims(key, owner, state, at) VALUES (?, ?, 'claimed', ?)",
      key,
      owner,
      at,
    );
    const claim = await this.get(key);
    return claim?.owner === owner && claim.state === 'claimed' && claim.at === at;
  }

  async settle(key: string, owner: string, state: Exclude<ClaimState, 'claimed'>, at: number): Promise<void> {
    await this.#ready;
    await this.#query(
      'UPDATE eventops_claims SET state = ?, at = ? WHERE key = ? AND owner = ?',
      state,
      at,
      key,
      owner,
    );
  }

  async get(key: string): Promise<Claim | undefined> {
    await this.#ready;
    const rows = (await this.#query('SELECT owner, state, at FROM eventops_claims WHERE key = ?', key)) as Claim[];
    const row = rows[0];
    return row ? { owner: row.owner, state: row.state, at: Number(row.at) } : undefined;
  }

  async release(key: string, owner: string): Promise<void> {
    await this.#ready;
    await this.#query("DELETE FROM eventops_claims WHERE key = ? AND owner = ? AND state = 'claimed'", key, owner);
  }

  async takeOver(key: string, expected: Claim, owner: string, at: number): Promise<boolean> {
    await this.#ready;
    // One UPDATE matching the whole expected row: SQLite runs it atomically, so one caller wins.
    await this.#query(
      "UPDATE eventops_claims SET owner = ?, state = 'claimed', at = ? WHERE key = ? AND owner = ? AND state = ? AND at = ?",
      owner,
      at,
      key,
      expected.owner,
      expected.state,
      expected.at,
    );
    const claim = await this.get(key);
    return claim?.owner === owner && claim.state === 'claimed' && claim.at === at;
  }

  async prune(before: number): Promise<number> {
    await this.#ready;
    const rows = (await this.#query('SELECT COUNT(*) AS n FROM eventops_claims WHERE at < ?', before)) as {
      n: number;
    }[];
    await this.#query('DELETE FROM eventops_claims WHERE at < ?', before);
    return Number(rows[0]?.n ?? 0);
  }
}
