import { addDays, formatPlainDate, type PlainDate, plainDateAt, startOfDay } from '../time/zoned.js';
import { normaliseId } from './normalise-id.js';
import { hashUnit, seededRandom } from './random.js';
import { assignSalesProfiles, BUCKET_MS, bucketWeight, eventKey, type SalesProfile } from './sales-profile.js';
import { SalesStream } from './sales-stream.js';
import type { SimCatalog, SimEvent, SimPromo } from './seed.js';

/**
 * How many events, of those listed first (by start, as `/events list` and the pickers show them),
 * sell briskly while moving: a person trying the sandbox sees them move within minutes.
 */
export const BRISK_EVENTS = 5;

/** `moving`: sales, check-ins and redemptions follow the clock; `still`: figures change only when set. */
export type Motion = 'still' | 'moving';

/** Figures to set on an event; omitted ones stay as they are. */
export interface FigureChanges {
  /** Spread over the categories by their capacity; at most the capacity. */
  ticketsSold?: number;
  /** The event's capacity, shared out over the categories (60/15/25); sales above it are cut back. */
  capacity?: number;
  /** At most the tickets sold. */
  checkIns?: number;
  /** By promo id (with or without `promo_`) or code; `redeemed` at most the quantity. */
  promos?: Record<string, { redeemed?: number; quantity?: number }>;
}

/** An event's figures at one instant, for the report. */
export interface FigureSnapshot {
  capacities: number[];
  sold: number[];
  checkIns: number;
  /**
   * The last 7 days of sales in the event's zone, ending on the day the figures are of: today while
   * moving, the day they stopped or were set while still, the event's last day once it is over.
   */
  salesByDay: { date: string; sold: number }[];
}

/** An event's figures at one instant before the simulator started, with its promo codes as they stood. */
export interface PastFigures {
  at: number;
  figures: FigureSnapshot;
  promos: SimPromo[];
}

/** How often the past is sampled: every `recentEveryMs` for `recentMs` before the start, every `everyMs` before that. */
export interface PastSpacing {
  everyMs: number;
  recentMs: number;
  recentEveryMs: number;
}

/** How far back an event's past sale reaches at most. */
const MAX_PAST_DAYS = 60;

export const CATEGORIES = [
  { name: 'General admission', share: 0.6, price: 25 },
  { name: 'VIP', share: 0.15, price: 120 },
  { name: 'Student', share: 0.25, price: 12 },
] as const;

/** The categories' capacities: their shares of `total`, rounded so that they add up to it. */
export function categoryCapacities(total: number): number[] {
  return spread(
    total,
    CATEGORIES.map((category) => category.share),
  );
}

/** `total` in whole parts proportional to `weights` (largest remainder), adding up to `total`. */
function spread(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0) || 1;
  const exact = weights.map((weight) => (total * weight) / sum);
  const parts = exact.map(Math.floor);
  const order = exact
    .map((value, index) => ({ index, rest: value - Math.floor(value) }))
    .sort((a, b) => b.rest - a.rest);
  for (let left = total - parts.reduce((a, b) => a + b, 0), i = 0; left > 0; left -= 1, i += 1) {
    const at = order[i % order.length]?.index ?? 0;
    parts[at] = (parts[at] ?? 0) + 1;
  }
  return parts;
}

interface FigureState {
  motion: Motion;
  /** The instant the figures below are true at. */
  at: number;
  capacities: number[];
  sold: number[];
  checkIns: number;
  /** Whole expected sales, redemptions and check-ins counted up to `at`: the next ones are the difference. */
  soldFloor: number[];
  promoFloor: Map<string, number>;
  checkInFloor: number;
  soldStreams: SalesStream[];
  promoStreams: Map<string, SalesStream>;
  /** Sales made while moving, by the event's local date. */
  soldByDay: Map<string, number>;
  /** Sales from before the start that the days before it draw on. */
  historyBase: number;
  /** Each category's sales when the simulator started (what its past leads up to). */
  startSold: number[];
  /** Sold out at the last bucket's start: promo codes are redeemed with tickets. */
  soldOutGate: boolean;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const soldOut = (state: FigureState) => state.sold.every((sold, i) => sold >= (state.capacities[i] ?? 0));

function checkInTarget(profile: SalesProfile, sold: number, ms: number): number {
  // Most of the audience arrives in the first half of the event.
  const half = Math.max(profile.endMs - profile.startMs, 3_600_000) / 2;
  const progress = Math.min(Math.max((ms - profile.startMs) / half, 0), 1);
  return Math.floor(sold * profile.showRate * progress);
}

function wholeNumber(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new RangeError(`${name} must be a whole number from 0 to ${max}; got ${value}`);
  }
  return value;
}

/**
 * Each event's report figures, computed lazily from the elapsed clock time: nothing runs between
 * reads, and an event's state is made on its first read. The same seed, clock and calls give the
 * same figures.
 */
export class MovingFigures {
  readonly #states = new Map<string, FigureState>();
  readonly #profiles: Map<string, SalesProfile>;
  readonly #events: Map<string, SimEvent>;
  readonly #promos = new Map<string, SimPromo[]>();
  /** The events listed first that sell briskly (see `BRISK_EVENTS`). */
  readonly #brisk = new Set<string>();
  #motion: Motion;

  constructor(
    private readonly catalog: SimCatalog,
    private readonly options: { seed: number; originMs: number; motion: Motion },
  ) {
    this.#motion = options.motion;
    this.#events = new Map(catalog.events.map((event) => [event.id, event]));
    for (const promo of catalog.promos) this.#promos.set(promo.eventId, [...this.promosOf(promo.eventId), promo]);
    this.#profiles = assignSalesProfiles(catalog, options.seed, options.originMs);
    this.#quickenListedFirst();
    for (const profile of this.#profiles.values()) {
      for (const id of profile.rushPromoIds) {
        const promo = catalog.promos.find((p) => p.id === id) as SimPromo;
        const left = 10 + Math.floor(6 * hashUnit(options.seed, profile.key, 21));
        promo.redeemed = Math.max(promo.quantity - left, 0);
      }
    }
  }

  /**
   * The first events a person sees (on sale, by start) sell 35-50% of their capacity an hour (90
   * tickets at the least), with no stalls: a few tickets a minute, so that a watch set on one sees its figures move and (they
   * start 84-87% sold while moving) cross 90% within a quarter of an hour. Hot events already do.
   */
  #quickenListedFirst(): void {
    const { seed, originMs } = this.options;
    const listed = this.catalog.events
      .filter((event) => event.status === 'published' && (this.#profiles.get(event.id)?.endMs ?? 0) > originMs)
      .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id))
      .slice(0, BRISK_EVENTS);
    for (const event of listed) {
      const profile = this.#profiles.get(event.id) as SalesProfile;
      if (profile.kind === 'hot') continue;
      // At least 90 tickets an hour, so a small event moves too.
      const hourlyShare = Math.max(0.35 + 0.15 * hashUnit(seed, profile.key, 40), 90 / Math.max(event.capacity, 1));
      Object.assign(profile, { kind: 'steady', hourlyShare, stallChance: 0, burstChance: 0 });
      this.promosOf(event.id).forEach((promo, index) => {
        profile.promoHourly.set(
          promo.id,
          event.capacity * hourlyShare * (0.03 + 0.12 * hashUnit(seed, profile.key, 41, index)),
        );
      });
      this.#brisk.add(event.id);
    }
  }

  promosOf(eventId: string): SimPromo[] {
    return this.#promos.get(eventId) ?? [];
  }

  profile(eventId: string): SalesProfile {
    return this.#profiles.get(this.#event(eventId).id) as SalesProfile;
  }

  /** The event's figures at `now`, after bringing them up to it. */
  snapshot(eventId: string, now: number): FigureSnapshot {
    const event = this.#event(eventId);
    const state = this.#advance(event, now);
    return {
      capacities: [...state.capacities],
      sold: [...state.sold],
      checkIns: state.checkIns,
      salesByDay: this.#salesByDay(event, state),
    };
  }

  /**
   * The event's sale before the simulator started, oldest first: figures every `recentEveryMs` back
   * from the start (or from the event's end, when it was over by then) for `recentMs`, every
   * `everyMs` before that, from the day its sale opened; the last are the figures it started
   * with. Each day before the start sold what the report's `salesByDay` says it did (about a
   * thirtieth of the starting sales), so a sale opened some four weeks before; within a day sales
   * grow evenly; promo redemptions grow with sales (as they stood when this is asked, at the start
   * in the sandbox); check-ins begin at the event's start.
   */
  past(eventId: string, spacing: PastSpacing): PastFigures[] {
    const event = this.#event(eventId);
    const state = this.#state(event);
    const profile = this.#profiles.get(event.id) as SalesProfile;
    const until = Math.min(this.options.originMs, profile.endMs);
    const base = sum(state.startSold);
    // Sold at instants going back, newest first: each day's sales come off at its start.
    const knots: { at: number; sold: number }[] = [{ at: until, sold: base }];
    let day = plainDateAt(until - 1, event.timezone);
    let sold = base;
    for (let i = 0; i < MAX_PAST_DAYS && sold > 0; i += 1) {
      const dayStart = startOfDay(day, event.timezone);
      const end = knots.at(-1)?.at ?? until;
      const daily = Math.max(1, this.#pastDaySales(profile, base, day));
      if (daily >= sold) {
        // The sale opened this day, where the day's even sales reach back to none.
        knots.push({ at: Math.floor(end - ((end - dayStart) * sold) / daily), sold: 0 });
        sold = 0;
        break;
      }
      sold -= daily;
      knots.push({ at: dayStart, sold });
      day = addDays(day, -1);
    }
    knots.reverse();
    const soldAt = (at: number) => {
      const after = knots.findIndex((knot) => knot.at >= at);
      const next = knots[after];
      const previous = knots[after - 1];
      if (!next) return base;
      if (!previous || next.at === previous.at) return next.sold;
      return Math.floor(previous.sold + ((next.sold - previous.sold) * (at - previous.at)) / (next.at - previous.at));
    };
    const opened = knots[0]?.at ?? until;
    const times: number[] = [];
    for (let at = until; at > opened; ) {
      times.push(at);
      at -= Math.max(until - at < spacing.recentMs ? spacing.recentEveryMs : spacing.everyMs, 60_000);
    }
    times.push(opened);
    return times.reverse().map((at) => {
      const total = at === until ? base : soldAt(at);
      const share = base > 0 ? total / base : 0;
      return {
        at,
        figures: {
          capacities: [...state.capacities],
          sold: at === until ? [...state.startSold] : spread(total, state.startSold),
          checkIns: at >= event.startsAtMs ? Math.min(checkInTarget(profile, total, at), total) : 0,
          salesByDay: [],
        },
        promos: this.promosOf(event.id).map((promo) => ({ ...promo, redeemed: Math.floor(promo.redeemed * share) })),
      };
    });
  }

  /** Brings the event up to `now`, so that a change made now (a promo update) counts from now. */
  settle(eventId: string, now: number): void {
    this.#advance(this.#event(eventId), now);
  }

  setMotion(eventId: string | 'all', motion: Motion, now: number): void {
    if (eventId === 'all') this.#motion = motion;
    const events = eventId === 'all' ? this.catalog.events : [this.#event(eventId)];
    for (const event of events) {
      const state = this.#advance(event, now);
      if (state.motion === motion) continue;
      state.motion = motion;
      // Starting: whatever would have sold while still is not made up.
      if (motion === 'moving') this.#resetFloors(event, state, now);
    }
  }

  /** Sets figures as of `now`; all are checked before any changes. Motion goes on from them. */
  setFigures(eventId: string, changes: FigureChanges, now: number): void {
    const event = this.#event(eventId);
    const state = this.#advance(event, now);
    const capacity = changes.capacity === undefined ? event.capacity : wholeNumber('capacity', changes.capacity);
    const capacities = categoryCapacities(capacity);
    const sold =
      changes.ticketsSold === undefined
        ? state.sold.map((value, i) => Math.min(value, capacities[i] ?? 0))
        : spread(wholeNumber('ticketsSold', changes.ticketsSold, capacity), capacities);
    const checkIns =
      changes.checkIns === undefined
        ? Math.min(state.checkIns, sum(sold))
        : wholeNumber('checkIns', changes.checkIns, sum(sold));
    const promos = Object.entries(changes.promos ?? {}).map(([key, change]) => {
      const id = normaliseId('promo', key);
      const promo = this.promosOf(event.id).find((p) => p.id === id || p.code.toLowerCase() === key.toLowerCase());
      if (!promo) throw new RangeError(`No promo code ${key} on event ${event.id}`);
      const quantity = change.quantity === undefined ? promo.quantity : wholeNumber('quantity', change.quantity);
      const redeemed = change.redeemed === undefined ? undefined : wholeNumber('redeemed', change.redeemed, quantity);
      return { promo, quantity, redeemed };
    });

    this.#recordChange(event, state, sum(sold) - sum(state.sold), now);
    event.capacity = capacity;
    Object.assign(state, { capacities, sold, checkIns });
    for (const { promo, quantity, redeemed } of promos) {
      promo.quantity = quantity;
      if (redeemed !== undefined) promo.redeemed = redeemed;
    }
    this.#resetFloors(event, state, now);
  }

  #event(eventId: string): SimEvent {
    const event = this.#events.get(normaliseId('evt', eventId) ?? '');
    if (!event) throw new RangeError(`No event ${eventId} in the simulator`);
    return event;
  }

  #state(event: SimEvent): FigureState {
    const known = this.#states.get(event.id);
    if (known) return known;
    const { seed, originMs } = this.options;
    const profile = this.#profiles.get(event.id) as SalesProfile;
    const capacities = categoryCapacities(event.capacity);
    // The draws the report has always made, so most events start where they always stood.
    const random = seededRandom(eventKey(event));
    const sold = capacities.map((capacity, i) => {
      if (event.status === 'draft') return 0;
      const drawn = Math.floor(capacity * (0.3 + random() * 0.7));
      // Listed first and moving: just short of 90%, so the default watch crosses it soon.
      if (this.#brisk.has(event.id) && this.#motion === 'moving')
        return Math.floor(capacity * (0.84 + 0.03 * hashUnit(seed, profile.key, 42, i)));
      // A hot event starts 86-90% sold, so it sells out within minutes of moving.
      return profile.kind === 'hot'
        ? Math.max(drawn, Math.floor(capacity * (0.86 + 0.04 * hashUnit(seed, profile.key, 22, i))))
        : drawn;
    });
    const checkIns = event.status === 'published' ? checkInTarget(profile, sum(sold), originMs) : 0;
    const weight = (stream: number) => (bucket: number) => bucketWeight(profile, seed, stream, bucket, originMs);
    const state: FigureState = {
      motion: this.#motion,
      at: originMs,
      capacities,
      sold,
      checkIns,
      soldFloor: capacities.map(() => 0),
      promoFloor: new Map(),
      checkInFloor: checkIns,
      soldStreams: capacities.map((_, i) => new SalesStream(originMs, weight(i))),
      promoStreams: new Map(
        this.promosOf(event.id).map((promo, i) => [promo.id, new SalesStream(originMs, weight(10 + i))]),
      ),
      soldByDay: new Map(),
      historyBase: sum(sold),
      startSold: [...sold],
      soldOutGate: false,
    };
    state.soldOutGate = soldOut(state);
    this.#states.set(event.id, state);
    return state;
  }

  #advance(event: SimEvent, now: number): FigureState {
    const state = this.#state(event);
    if (state.motion === 'still' || now <= state.at) return state;
    const profile = this.#profiles.get(event.id) as SalesProfile;
    if (profile.kind === 'idle') {
      state.at = now;
      return state;
    }
    // Bucket by bucket, so that promo codes stop at the same bucket after a sell-out however
    // often the report is read; and day by day in the event's zone, so each sale lands on its date.
    const stop = Math.min(now, profile.endMs);
    let date = '';
    let nextDay = Number.NEGATIVE_INFINITY;
    for (let from = state.at; from < stop; ) {
      if (from >= nextDay) {
        const day = plainDateAt(from, event.timezone);
        date = formatPlainDate(day);
        nextDay = Math.max(startOfDay(addDays(day, 1), event.timezone), from + 1);
      }
      const nextBucket =
        this.options.originMs + (Math.floor((from - this.options.originMs) / BUCKET_MS) + 1) * BUCKET_MS;
      const to = Math.min(stop, nextDay, nextBucket);
      this.#sell(event, state, profile, to, date);
      if (to === nextBucket) state.soldOutGate = soldOut(state);
      from = to;
    }
    const target = checkInTarget(profile, sum(state.sold), now);
    state.checkIns = Math.min(sum(state.sold), state.checkIns + Math.max(0, target - state.checkInFloor));
    state.checkInFloor = target;
    state.at = now;
    return state;
  }

  #sell(event: SimEvent, state: FigureState, profile: SalesProfile, to: number, date: string): void {
    let added = 0;
    state.soldStreams.forEach((stream, i) => {
      const capacity = state.capacities[i] ?? 0;
      const floor = Math.floor(capacity * profile.hourlyShare * stream.at(to));
      const sold = state.sold[i] ?? 0;
      const more = Math.min(Math.max(floor - (state.soldFloor[i] ?? 0), 0), capacity - sold);
      state.soldFloor[i] = floor;
      if (more > 0) {
        state.sold[i] = sold + more;
        added += more;
      }
    });
    if (added > 0) state.soldByDay.set(date, (state.soldByDay.get(date) ?? 0) + added);
    for (const promo of this.promosOf(event.id)) {
      const stream = state.promoStreams.get(promo.id) as SalesStream;
      const floor = Math.floor((profile.promoHourly.get(promo.id) ?? 0) * stream.at(to));
      const more = Math.max(floor - (state.promoFloor.get(promo.id) ?? 0), 0);
      state.promoFloor.set(promo.id, floor);
      // None once sold out, none past the quantity, however it was set.
      if (!state.soldOutGate && promo.active)
        promo.redeemed = Math.max(promo.redeemed, Math.min(promo.redeemed + more, promo.quantity));
    }
  }

  /** Counts expected sales from `now` on, so a change or a restart does not release a backlog. */
  #resetFloors(event: SimEvent, state: FigureState, now: number): void {
    const profile = this.#profiles.get(event.id) as SalesProfile;
    state.soldStreams.forEach((stream, i) => {
      state.soldFloor[i] = Math.floor((state.capacities[i] ?? 0) * profile.hourlyShare * stream.at(now));
    });
    for (const [id, stream] of state.promoStreams) {
      state.promoFloor.set(id, Math.floor((profile.promoHourly.get(id) ?? 0) * stream.at(now)));
    }
    state.checkInFloor = checkInTarget(profile, sum(state.sold), now);
    state.soldOutGate = soldOut(state);
    state.at = Math.max(state.at, now);
  }

  /** A change made by hand lands on today's sales, or (taken away) comes off the latest days first. */
  #recordChange(event: SimEvent, state: FigureState, change: number, now: number): void {
    if (change === 0) return;
    if (change > 0) {
      const today = formatPlainDate(plainDateAt(now, event.timezone));
      state.soldByDay.set(today, (state.soldByDay.get(today) ?? 0) + change);
      return;
    }
    let left = -change;
    for (const date of [...state.soldByDay.keys()].sort().reverse()) {
      const taken = Math.min(left, state.soldByDay.get(date) ?? 0);
      state.soldByDay.set(date, (state.soldByDay.get(date) ?? 0) - taken);
      left -= taken;
    }
    state.historyBase = Math.max(0, state.historyBase - left);
  }

  /** What one day before the start sold: a thirtieth of the starting sales, give or take half. */
  #pastDaySales(profile: SalesProfile, base: number, day: PlainDate): number {
    const days = Date.UTC(day.year, day.month - 1, day.day) / 86_400_000;
    return Math.floor((base / 30) * (0.5 + hashUnit(this.options.seed, profile.key, 30, days)));
  }

  #salesByDay(event: SimEvent, state: FigureState): FigureSnapshot['salesByDay'] {
    const { originMs } = this.options;
    const profile = this.#profiles.get(event.id) as SalesProfile;
    const zone = event.timezone;
    const last = plainDateAt(Math.min(state.at, profile.endMs - 1), zone);
    const firstMoving = formatPlainDate(plainDateAt(originMs, zone));
    return Array.from({ length: 7 }, (_, i) => {
      const day = addDays(last, i - 6);
      const date = formatPlainDate(day);
      // Before the start, a share of the starting sales (at most 35% over 7 days); since, what sold.
      const history = date <= firstMoving ? this.#pastDaySales(profile, state.historyBase, day) : 0;
      return { date, sold: history + (state.soldByDay.get(date) ?? 0) };
    });
  }
}
