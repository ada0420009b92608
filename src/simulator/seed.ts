import {
  addDays,
  epochOfWallTime,
  formatPlainDate,
  isoWithOffset,
  plainDateAt,
  zoneOffsetMinutes,
} from '../time/zoned.js';
import { seededRandom, seededUuid } from './random.js';

/** An event as the simulator stores and serves it (fields beyond the spec's four are our assumptions). */
export interface SimEvent {
  id: string;
  name: string;
  status: 'published' | 'draft' | 'cancelled';
  startDate: string;
  endDate: string;
  timezone: string;
  currency: string;
  venue: { name: string; city: string };
  capacity: number;
  /** Sort key: the first instant of the event. */
  startsAtMs: number;
}

export interface SimPromo {
  id: string;
  eventId: string;
  code: string;
  quantity: number;
  redeemed: number;
  discountPercent: number;
  active: boolean;
}

export interface SimCatalog {
  /** Sorted by start, then id: the order `GET /v1/events` serves. */
  events: SimEvent[];
  promos: SimPromo[];
}

export interface SeedOptions {
  seed?: number;
  /** Events are placed around this instant (a few days before, most after). */
  anchorMs: number;
  /** @default 160 */
  eventCount?: number;
}

interface ZoneInfo {
  zone: string;
  city: string;
  currency: string;
}

/** Whole-hour, half-hour and 45-minute offsets, both hemispheres' DST, and zones without DST. */
export const SEED_ZONES: readonly ZoneInfo[] = [
  { zone: 'Asia/Kathmandu', city: 'Kathmandu', currency: 'NPR' },
  { zone: 'America/St_Johns', city: "St. John's", currency: 'CAD' },
  { zone: 'Asia/Kolkata', city: 'Bengaluru', currency: 'INR' },
  { zone: 'Australia/Adelaide', city: 'Adelaide', currency: 'AUD' },
  { zone: 'Europe/London', city: 'London', currency: 'GBP' },
  { zone: 'America/New_York', city: 'New York', currency: 'USD' },
  { zone: 'America/Los_Angeles', city: 'Los Angeles', currency: 'USD' },
  { zone: 'Asia/Tokyo', city: 'Tokyo', currency: 'JPY' },
  { zone: 'Europe/Berlin', city: 'Berlin', currency: 'EUR' },
  { zone: 'Australia/Sydney', city: 'Sydney', currency: 'AUD' },
  { zone: 'Pacific/Chatham', city: 'Waitangi', currency: 'NZD' },
  { zone: 'America/Sao_Paulo', city: 'São Paulo', currency: 'BRL' },
  { zone: 'Asia/Tehran', city: 'Tehran', currency: 'IRR' },
  { zone: 'UTC', city: 'Online', currency: 'USD' },
];

const ADJECTIVES = [
  'Midnight',
  'Summer',
  'Northern',
  'Open',
  'Grand',
  'Quiet',
  'Electric',
  'Golden',
  'Urban',
  'Winter',
  'Harbour',
  'Spring',
  'Velvet',
  'Riverside',
  'Sunset',
  'Crystal',
  'Autumn',
  'Coastal',
  'Silver',
  'Lakeside',
];
const NOUNS = [
  'Jazz Night',
  'Tech Meetup',
  'Food Fair',
  'Film Club',
  'Marathon',
  'Book Launch',
  'Hackathon',
  'Gala',
  'Workshop',
  'Concert',
  'Wine Tasting',
  'Comedy Show',
  'Art Fair',
  'Poetry Slam',
  'Design Summit',
  'Choir Evening',
  'Dance Class',
  'Startup Pitch',
  'Quiz Night',
  'Craft Market',
];

/** Names that must be escaped before Slack sees them; they recur through the catalog. */
export const HOSTILE_NAMES: readonly string[] = [
  '<!channel> Free tickets for everyone',
  'Ops & Marketing <Summit> 2026',
  'Launch party <https://evil.example|click here>',
  '<@U0123456> private preview & <!here> drinks',
  '*Bold* _claims_ ~strike~ `code` night',
  'Café Noir — Jazz & Blues 🎷',
];

function daysFrom(random: () => number): number {
  // Mostly upcoming, a few already over.
  return Math.floor(random() * 45) - 3;
}

/** The first instant after `fromMs` (within a year) at which `zone`'s UTC offset changes. */
export function nextOffsetChange(zone: string, fromMs: number): number | undefined {
  const day = 86_400_000;
  let previous = zoneOffsetMinutes(fromMs, zone);
  for (let t = fromMs + day; t < fromMs + 370 * day; t += day) {
    const offset = zoneOffsetMinutes(t, zone);
    if (offset !== previous) {
      let low = t - day;
      let high = t;
      while (high - low > 60_000) {
        const mid = Math.floor((low + high) / 2);
        if (zoneOffsetMinutes(mid, zone) === previous) low = mid;
        else high = mid;
      }
      return high;
    }
    previous = offset;
  }
  return undefined;
}

/** A deterministic catalog: the same options give the same events, ids and promos. */
export function seedCatalog(options: SeedOptions): SimCatalog {
  const random = seededRandom(options.seed ?? 42);
  const count = Math.max(options.eventCount ?? 160, 1);
  const events: SimEvent[] = [];
  const promos: SimPromo[] = [];

  const add = (zoneInfo: ZoneInfo, name: string, start: string, end: string, startsAtMs: number) => {
    const index = events.length;
    const status = index % 19 === 7 ? 'cancelled' : index % 23 === 11 ? 'draft' : 'published';
    const event: SimEvent = {
      id: `evt_${seededUuid(random)}`,
      name,
      status,
      startDate: start,
      endDate: end,
      timezone: zoneInfo.zone,
      currency: zoneInfo.currency,
      venue: { name: `${NOUNS[index % NOUNS.length]} Hall`, city: zoneInfo.city },
      capacity: 50 + Math.floor(random() * 20) * 25,
      startsAtMs,
    };
    events.push(event);
    const promoCount = 2 + (index % 2);
    for (let p = 0; p < promoCount; p += 1) {
      const quantity = 20 + Math.floor(random() * 10) * 10;
      promos.push({
        id: `promo_${seededUuid(random)}`,
        eventId: event.id,
        code: ['EARLYBIRD', 'FRIENDS', 'STAFF'][p] ?? `CODE${p}`,
        quantity,
        redeemed: Math.floor(random() * quantity),
        discountPercent: [10, 25, 100][p] ?? 5,
        active: true,
      });
    }
  };

  // Events that cross a DST change in zones that have one.
  for (const zone of ['Europe/London', 'America/New_York', 'Australia/Sydney', 'America/St_Johns']) {
    const info = SEED_ZONES.find((z) => z.zone === zone) as ZoneInfo;
    const change = nextOffsetChange(zone, options.anchorMs);
    if (change === undefined || events.length >= count) continue;
    const start = change - 2 * 3_600_000;
    const end = change + 2 * 3_600_000;
    add(info, `Clock Change Party (${info.city})`, isoWithOffset(start, zone), isoWithOffset(end, zone), start);
  }

  const anchorDay = plainDateAt(options.anchorMs, 'UTC');
  // Every name once, so that a name typed in full finds one event: the random pair, or the next unused one.
  const used = new Set<string>();
  const combos = ADJECTIVES.length * NOUNS.length;
  const distinctName = (adjective: number, noun: number): string => {
    for (let step = 0; step < combos; step += 1) {
      const at = (adjective * NOUNS.length + noun + step) % combos;
      const name = `${ADJECTIVES[Math.floor(at / NOUNS.length)]} ${NOUNS[at % NOUNS.length]}`;
      if (!used.has(name)) return name;
    }
    return `${ADJECTIVES[adjective]} ${NOUNS[noun]} ${events.length}`;
  };
  while (events.length < count) {
    const index = events.length;
    const info = SEED_ZONES[index % SEED_ZONES.length] as ZoneInfo;
    const day = addDays(anchorDay, daysFrom(random));
    // Each hostile sample once, then ordinary names.
    const hostile = index % 11 === 5 ? HOSTILE_NAMES[Math.floor(index / 11)] : undefined;
    const name =
      index % 11 === 5 && hostile !== undefined
        ? hostile
        : index % 11 === 5
          ? distinctName(index % ADJECTIVES.length, index % NOUNS.length)
          : distinctName(Math.floor(random() * ADJECTIVES.length), Math.floor(random() * NOUNS.length));
    used.add(name);
    if (index % 13 === 3) {
      // A multi-day festival: plain dates, no time, no zone shift (spec 2.2 rule 3).
      const last = addDays(day, 1 + Math.floor(random() * 3));
      const startsAtMs = epochOfWallTime({ ...day, hour: 0, minute: 0, second: 0 }, info.zone);
      add(info, `${name} Festival`, formatPlainDate(day), formatPlainDate(last), startsAtMs);
      continue;
    }
    const crossesMidnight = index % 17 === 4;
    const hour = crossesMidnight ? 22 : 9 + Math.floor(random() * 12);
    const minute = [0, 15, 30, 45][Math.floor(random() * 4)] ?? 0;
    const start = epochOfWallTime({ ...day, hour, minute, second: 0 }, info.zone);
    const hours = crossesMidnight ? 4 : 1 + Math.floor(random() * 4);
    const end = start + hours * 3_600_000;
    add(info, name, isoWithOffset(start, info.zone), isoWithOffset(end, info.zone), start);
  }

  events.sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id));
  return { events, promos };
}
