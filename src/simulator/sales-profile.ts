import { addDays, parsePlainDate, startOfDay } from '../time/zoned.js';
import { hashUnit } from './random.js';
import type { SimCatalog, SimEvent } from './seed.js';

/**
 * How an event sells while the simulator moves: `hot` sells its last 10% within minutes and sells
 * out, `steady` sells slowly with the odd burst, `stalling` goes hours without a sale, `idle` never
 * moves (as do drafts, cancelled events and events over before the simulator started).
 */
export type SalesKind = 'hot' | 'steady' | 'stalling' | 'idle';

export interface SalesProfile {
  kind: SalesKind;
  /** Share of each category's capacity sold per hour, before noise, bursts and stalls. */
  hourlyShare: number;
  /** Chance that a 3-hour block passes without a sale. */
  stallChance: number;
  /** Chance that a 5-minute bucket sells 4-8 times as fast. */
  burstChance: number;
  /** Share of the arriving buyers (0.75-0.95) who check in, most in the first half of the event. */
  showRate: number;
  /** Redemptions per hour of each promo code, by promo id. */
  promoHourly: Map<string, number>;
  /** Promo codes that start a dozen or so short of their quantity and redeem 1.5-3 a minute. */
  rushPromoIds: string[];
  /** Sales stop here; check-ins run from the start to here. */
  startMs: number;
  endMs: number;
  /** The event's own number, mixed into every draw. */
  key: number;
}

export const BUCKET_MS = 5 * 60_000;
export const STALL_BLOCK_MS = 3 * 3_600_000;
const HOUR_MS = 3_600_000;

/** The first instant after the event: an instant's own value, or the day after a plain end date in the event's zone. */
export function eventEndMs(event: SimEvent): number {
  const plain = parsePlainDate(event.endDate);
  return plain ? startOfDay(addDays(plain, 1), event.timezone) : Date.parse(event.endDate);
}

export function eventKey(event: SimEvent): number {
  return Number.parseInt(event.id.slice(4, 12), 16);
}

/**
 * Deals the profiles out by rank of a seeded draw, so any catalog of a few events or more has a
 * hot one: about 4% of the events still on sale are hot (at least 1, at most 6; the first two also
 * rush a promo code), 10% idle, 10% stalling, the rest steady, mostly slow.
 */
export function assignSalesProfiles(catalog: SimCatalog, seed: number, originMs: number): Map<string, SalesProfile> {
  const profiles = new Map<string, SalesProfile>();
  const onSale: { event: SimEvent; draw: number }[] = [];
  for (const event of catalog.events) {
    const key = eventKey(event);
    const endMs = eventEndMs(event);
    profiles.set(event.id, {
      kind: 'idle',
      hourlyShare: 0,
      stallChance: 0,
      burstChance: 0,
      showRate: 0.75 + 0.2 * hashUnit(seed, key, 1),
      promoHourly: new Map(),
      rushPromoIds: [],
      startMs: event.startsAtMs,
      endMs,
      key,
    });
    if (event.status === 'published' && endMs > originMs) onSale.push({ event, draw: hashUnit(seed, key, 2) });
  }
  onSale.sort((a, b) => a.draw - b.draw || a.event.id.localeCompare(b.event.id));
  const hot = Math.min(6, Math.max(1, Math.round(onSale.length * 0.04)));
  const idle = Math.round(onSale.length * 0.1);
  const stalling = Math.round(onSale.length * 0.1);
  onSale.forEach(({ event }, rank) => {
    const profile = profiles.get(event.id) as SalesProfile;
    const promos = catalog.promos.filter((promo) => promo.eventId === event.id);
    const draw = (n: number) => hashUnit(seed, profile.key, n);
    if (rank < hot) {
      // The last 10% in 5-15 minutes.
      Object.assign(profile, { kind: 'hot', hourlyShare: 0.1 / ((5 + 10 * draw(3)) / 60) });
      const rush = rank < 2 ? promos.find((promo) => promo.active) : undefined;
      if (rush) profile.rushPromoIds.push(rush.id);
    } else if (rank < hot + idle) {
      return;
    } else if (rank < hot + idle + stalling) {
      Object.assign(profile, { kind: 'stalling', hourlyShare: 0.01 + 0.02 * draw(3), stallChance: 0.7 });
    } else {
      // Mostly slow: 0.2% to 3% of capacity an hour, skewed to the low end.
      Object.assign(profile, { kind: 'steady', hourlyShare: 0.002 + 0.028 * draw(3) ** 2, stallChance: 0.08 });
    }
    if (profile.kind !== 'hot') profile.burstChance = 0.02;
    promos.forEach((promo, index) => {
      const rushing = profile.rushPromoIds.includes(promo.id);
      const hourly = rushing
        ? 60 * (1.5 + 1.5 * draw(10 + index))
        : event.capacity * profile.hourlyShare * (0.03 + 0.12 * draw(10 + index));
      profile.promoHourly.set(promo.id, hourly);
    });
  });
  return profiles;
}

/**
 * Expected sales per unit of rate in one 5-minute bucket: noise around 1, the event's bursts and
 * stalls (shared by all its categories and promo codes), nothing once the event is over.
 */
export function bucketWeight(profile: SalesProfile, seed: number, stream: number, bucket: number, originMs: number) {
  const startsAt = originMs + bucket * BUCKET_MS;
  if (profile.kind === 'idle' || startsAt >= profile.endMs) return 0;
  const block = Math.floor((bucket * BUCKET_MS) / STALL_BLOCK_MS);
  if (profile.stallChance > 0 && hashUnit(seed, profile.key, 4, block) < profile.stallChance) return 0;
  const burst =
    profile.burstChance > 0 && hashUnit(seed, profile.key, 5, bucket) < profile.burstChance
      ? 4 + 4 * hashUnit(seed, profile.key, 6, bucket)
      : 1;
  return (BUCKET_MS / HOUR_MS) * (0.5 + hashUnit(seed, profile.key, 7, stream, bucket)) * burst;
}
