import { type Logger, silentLogger } from '../logger.js';
import type { CallOptions, TicketingClient } from '../ticketing/client.js';
import { cancellationError } from '../ticketing/errors.js';
import { parseId } from '../ticketing/ids.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { TicketingEvent } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { sleepOn, systemClock } from '../time/clock.js';
import type { CatalogShare, CrawlStamp } from './catalog-share.js';

/** One complete crawl of the organization's events. */
export interface CatalogSnapshot {
  /** Every event, soonest start first (then by id), whatever order the API listed them in. */
  events: readonly TicketingEvent[];
  byId: ReadonlyMap<string, TicketingEvent>;
  /** When the crawl that produced it finished (clock ms). */
  asOf: number;
  /** Requests the crawl cost (its pages). */
  requests: number;
}

export interface EventCatalogOptions {
  client: Pick<TicketingClient, 'eventPages'>;
  /** The organization's budget, to keep the refresh within `budgetShare` of it. */
  orgLimit: RateLimitSpec;
  /** Most of the budget the refresh may take. @default 0.1 */
  budgetShare?: number;
  /** Shortest refresh period, however cheap the crawl. @default one window of `orgLimit` (the spec's minute) */
  minPeriodMs?: number;
  /**
   * With replicas: where they hand crawls to each other, so one replica crawls per period for all
   * (`owner` names this one in the claim). @default each process crawls for itself
   */
  share?: { share: CatalogShare; owner: string } | undefined;
  /** With `share`: how often a replica waiting for another's crawl looks for it. @default 250 */
  sharedPollMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** How long a reader is willing to wait for a crawl it needs. */
export interface ReadOptions {
  /** The reader gives up waiting (the crawl goes on for the others). */
  signal?: AbortSignal | undefined;
  /**
   * A crawl this reader starts fails fast when the rate limit would hold it longer (the person is
   * told how long); a background refresh waits as long as it takes.
   */
  maxRateLimitWaitMs?: number | undefined;
}

/** An event found by id, and how old the catalog's knowledge is. */
export interface Lookup {
  event: TicketingEvent | undefined;
  asOf: number;
}

/**
 * The organization's events, crawled as background work and shared by every reader: `show`,
 * `promo`, `report`, digests, App Home, search and the event picker. The spec has no single-event
 * read, so this replaces a crawl per command with one crawl per refresh period for everyone.
 *
 * The period is chosen so the refresh never takes more than `budgetShare` of the budget: a crawl of
 * N pages may start only N × window / (share × limit) after the previous one began (and at least
 * `minPeriodMs`). Within that period the catalog is fresh: an unknown id is "not found" with no
 * request. Once it is due, the first reader (or the background timer) starts the crawl and every
 * other reader joins it. A failed crawl keeps the previous snapshot.
 */
export class EventCatalog {
  readonly #client: Pick<TicketingClient, 'eventPages'>;
  readonly #orgLimit: RateLimitSpec;
  readonly #budgetShare: number;
  readonly #minPeriodMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #snapshot: CatalogSnapshot | undefined;
  #crawl: Promise<CatalogSnapshot> | undefined;
  #lastCrawlStart = Number.NEGATIVE_INFINITY;
  #crawls = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #share: { share: CatalogShare; owner: string } | undefined;
  readonly #sharedPollMs: number;
  /** The crawl (by the stamp it follows) another replica claimed and has not published in time. */
  #lateSince: number | undefined;

  constructor(options: EventCatalogOptions) {
    this.#share = options.share;
    this.#sharedPollMs = options.sharedPollMs ?? 250;
    if (!(this.#sharedPollMs > 0)) throw new RangeError(`sharedPollMs must be positive, got ${this.#sharedPollMs}`);
    this.#client = options.client;
    this.#orgLimit = options.orgLimit;
    this.#budgetShare = options.budgetShare ?? 0.1;
    if (!(this.#budgetShare > 0 && this.#budgetShare <= 1))
      throw new RangeError(`budgetShare must be in (0, 1], got ${this.#budgetShare}`);
    this.#minPeriodMs = options.minPeriodMs ?? options.orgLimit.windowMs;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Least time between the starts of two crawls, from the last crawl's measured cost. */
  get periodMs(): number {
    return this.#periodFor(this.#snapshot?.requests ?? 1);
  }

  #periodFor(pages: number): number {
    const allowedPerWindow = this.#budgetShare * this.#orgLimit.limit;
    return Math.max(this.#minPeriodMs, Math.ceil((pages * this.#orgLimit.windowMs) / allowedPerWindow));
  }

  /** Crawls started so far. */
  get crawls(): number {
    return this.#crawls;
  }

  /** The latest snapshot without waiting (undefined before the first crawl has finished). */
  current(): CatalogSnapshot | undefined {
    return this.#snapshot;
  }

  /** A snapshot no older than the refresh period when one may be had; a stale one if a crawl fails. */
  async snapshot(options: ReadOptions = {}): Promise<CatalogSnapshot> {
    const current = this.#snapshot;
    if (current && !this.#due()) return current;
    try {
      return await untilAborted(this.#refresh(options.maxRateLimitWaitMs), options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (!current) throw error;
      this.#logger.warn('Refreshing the event catalog failed; answering from the previous crawl', {
        error,
        asOf: new Date(current.asOf).toISOString(),
      });
      return current;
    }
  }

  /** Every event (sorted); see `snapshot`. */
  async all(options: ReadOptions = {}): Promise<readonly TicketingEvent[]> {
    return (await this.snapshot(options)).events;
  }

  /**
   * An event by id, with or without its prefix. A miss is answered from a fresh catalog with no
   * request; only when the catalog is due does it refresh, once for everyone asking.
   */
  async lookup(eventId: string, options: ReadOptions = {}): Promise<Lookup> {
    const id = parseId('event', eventId);
    let snapshot = await this.snapshot(options);
    const crawl = this.#crawl;
    if (!snapshot.byId.has(id) && crawl) {
      // A refresh is under way (another reader or the timer started it): a miss waits for it.
      snapshot = await untilAborted(crawl, options.signal).catch((error: unknown) => {
        if (options.signal?.aborted) throw error;
        return snapshot;
      });
    }
    return { event: snapshot.byId.get(id), asOf: snapshot.asOf };
  }

  /** Refreshes in the background whenever the period has passed, until `stop()`. */
  start(): void {
    // With replicas a due catalog may be waiting on another's crawl: look again, not at once.
    const floorMs = this.#share ? 4 * this.#sharedPollMs : 0;
    const tick = () => {
      this.#timer = setTimeout(
        () => {
          void this.snapshot()
            .catch((error: unknown) => this.#logger.warn('The background catalog refresh failed', { error }))
            .finally(tick);
        },
        Math.max(this.#untilDue(), floorMs),
      );
      this.#timer.unref();
    };
    if (!this.#timer) tick();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #due(): boolean {
    return this.#untilDue() === 0;
  }

  #untilDue(): number {
    return Math.max(0, this.#lastCrawlStart + this.periodMs - this.#clock.now());
  }

  #refresh(maxRateLimitWaitMs: number | undefined): Promise<CatalogSnapshot> {
    const options: CallOptions & { limit: number } = {
      priority: 'background',
      limit: 100,
      ...(maxRateLimitWaitMs === undefined ? {} : { maxRateLimitWaitMs }),
    };
    this.#crawl ??= (this.#share ? this.#sharedRefresh(this.#share, options) : this.#crawlNow(options)).finally(() => {
      this.#crawl = undefined;
    });
    return this.#crawl;
  }

  async #crawlNow(options: CallOptions & { limit: number }): Promise<CatalogSnapshot> {
    this.#lastCrawlStart = this.#clock.now();
    this.#crawls += 1;
    const events: TicketingEvent[] = [];
    let requests = 0;
    for await (const page of this.#client.eventPages(options)) {
      requests += 1;
      events.push(...page.items);
    }
    events.sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id));
    const snapshot = snapshotOf(events, this.#clock.now(), requests);
    this.#snapshot = snapshot;
    this.#logger.info('Event catalog refreshed', { events: events.length, requests, periodMs: this.periodMs });
    return snapshot;
  }

  /**
   * With replicas: a crawl another replica published within its period is taken as it is; when
   * none is, one replica claims the next crawl and publishes it. The others wait for it about as
   * long as a crawl takes; if it is late (its replica may have died), they answer from the last
   * published crawl without waiting again, until the claim is old enough to take over.
   */
  async #sharedRefresh(
    { share, owner }: { share: CatalogShare; owner: string },
    options: CallOptions & { limit: number },
  ): Promise<CatalogSnapshot> {
    const stamp = await share.stamp();
    if (stamp && this.#clock.now() < stamp.startedAt + this.#periodFor(stamp.requests)) {
      return (await this.#adoptShared(share, stamp)) ?? this.#crawlNow(options);
    }
    const after = stamp?.asOf ?? 0;
    // A claim this old belongs to a replica that died mid-crawl: another takes it over.
    const staleMs = Math.max(3 * this.periodMs, 10 * this.#orgLimit.windowMs);
    if (await share.claimNext(after, owner, this.#clock.now(), staleMs)) {
      this.#lateSince = undefined;
      const snapshot = await this.#crawlNow(options);
      await share
        .publish({
          events: [...snapshot.events],
          asOf: snapshot.asOf,
          startedAt: this.#lastCrawlStart,
          requests: snapshot.requests,
        })
        .catch((error: unknown) => this.#logger.warn('Could not share the crawl with the other replicas', { error }));
      return snapshot;
    }
    // Another replica is crawling. With nothing to answer from, wait for it as long as a claim may
    // last; with something, only about as long as a crawl takes, and not again once it is late.
    const known = this.#snapshot ?? (stamp ? await this.#adoptShared(share, stamp) : undefined);
    const crawlMs = stamp ? stamp.asOf - stamp.startedAt : 0;
    const patienceMs = known ? Math.max(2 * crawlMs, this.#orgLimit.windowMs) : staleMs;
    if (known && this.#lateSince !== undefined && this.#lateSince === after) return known;
    // Polls are counted as well as the clock read, so a clock that stands still cannot keep us here.
    const deadline = this.#clock.now() + patienceMs;
    const pollMs = this.#sharedPollMs;
    for (let polls = Math.ceil(patienceMs / pollMs); polls > 0 && this.#clock.now() < deadline; polls -= 1) {
      await sleepOn(this.#clock, pollMs);
      const next = await share.stamp();
      if (next && next.asOf > after) {
        const adopted = await this.#adoptShared(share, next);
        if (adopted) {
          this.#lateSince = undefined;
          return adopted;
        }
      }
    }
    if (!known) throw new Error('Another replica claimed the event crawl and did not finish it');
    this.#lateSince = after;
    this.#logger.warn("Another replica's event crawl is late; answering from the last one", {
      asOf: new Date(known.asOf).toISOString(),
    });
    return known;
  }

  /** Takes a published crawl as this catalog's snapshot (loading its events only when new here). */
  async #adoptShared(share: CatalogShare, stamp: CrawlStamp): Promise<CatalogSnapshot | undefined> {
    this.#lastCrawlStart = Math.max(this.#lastCrawlStart, stamp.startedAt);
    if (this.#snapshot && this.#snapshot.asOf >= stamp.asOf) return this.#snapshot;
    const crawl = await share.load();
    if (!crawl) return undefined;
    this.#lastCrawlStart = crawl.startedAt;
    this.#snapshot = snapshotOf(crawl.events, crawl.asOf, crawl.requests);
    this.#logger.info('Event catalog taken from another replica', {
      events: crawl.events.length,
      asOf: new Date(crawl.asOf).toISOString(),
    });
    return this.#snapshot;
  }
}

function snapshotOf(events: readonly TicketingEvent[], asOf: number, requests: number): CatalogSnapshot {
  return { events, byId: new Map(events.map((event) => [event.id, event])), asOf, requests };
}

/** The work's result, or the signal's reason once it aborts first (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(cancellationError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancellationError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
