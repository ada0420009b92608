import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import type { Claim, ClaimStore } from '../../src/store/claims.js';
import type { KeyValueStore } from '../../src/store/key-value-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import { AlertQuieting } from '../../src/watches/alert-quieting.js';
import type { ConditionState, EventCheck, Watch } from '../../src/watches/watch.js';
import type { CardState, WatchChat, WatchMessages, WatchMetadata } from '../../src/watches/watch-chat.js';
import type { WatchCondition } from '../../src/watches/watch-condition.js';
import type { WatchScheduleRule } from '../../src/watches/watch-schedule.js';
import { type WatchReports, WatchService, type WatchServiceOptions } from '../../src/watches/watch-service.js';
import { WatchStore } from '../../src/watches/watch-store.js';
import { waitFor } from '../helpers/wait-for.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const T0 = Date.parse('2026-12-01T09:00:00Z');
const RULE: WatchScheduleRule = { limit: 3, windowMs: MINUTE, minIntervalMs: 10 * MINUTE };
const INTERVAL = 10 * MINUTE;
const LEASE = 2 * MINUTE;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** What the fake message builders return: enough to say which message was built from what. */
type Msg =
  | { kind: 'card'; state: CardState; eventId: string; conditions: ConditionState[]; checks: number | undefined }
  | { kind: 'alert'; condition: string; value: number }
  | { kind: 'summary'; eventId: string; checks: number | undefined }
  | { kind: 'paused'; reason: string };

const messages: WatchMessages<Msg> = {
  card: ({ watch, check, state }) => ({
    kind: 'card',
    state,
    eventId: watch.eventId,
    conditions: watch.conditions,
    checks: check?.checks,
  }),
  alert: ({ condition, value }) => ({ kind: 'alert', condition: condition.key, value }),
  summary: ({ watch, check }) => ({ kind: 'summary', eventId: watch.eventId, checks: check?.checks }),
  paused: (_watch, reason) => ({ kind: 'paused', reason }),
};

/** A Slack error that means the channel refuses posts for good. */
class Refusal extends Error {
  constructor(readonly code: string) {
    super(`An API error occurred: ${code}`);
  }
}

/** A promise that never settles: the process died there. */
const never = <T>() => new Promise<T>(() => undefined);

/** A chat behaviour that dies at `where`, and a promise that resolves once it has. */
function dying(where: Omit<ChatBehaviour, 'died'>): { behaviour: ChatBehaviour; dead: Promise<void> } {
  let died: () => void = () => undefined;
  const dead = new Promise<void>((resolve) => {
    died = resolve;
  });
  return { behaviour: { ...where, died }, dead };
}

/** Slack as the replicas share it: every message any of them posted. */
class FakeSlack {
  cards: { channel: string; ts: string; message: Msg; metadata: WatchMetadata }[] = [];
  updates: { channel: string; ts: string; message: Msg }[] = [];
  replies: { channel: string; threadTs: string; message: Msg; broadcast: boolean; metadata: WatchMetadata }[] = [];
  notices: { userId: string; message: Msg }[] = [];
  findReplyCalls: { channel: string; threadTs: string; metadata: WatchMetadata }[] = [];
  /** Channels that refuse every post and edit, with the code Slack gives. */
  refusing = new Map<string, string>();
  /** The next replies fail with a temporary error (not a refusal). */
  failingReplies = 0;
  #seq = 0;

  nextTs(): string {
    this.#seq += 1;
    return `1764579600.${String(this.#seq).padStart(6, '0')}`;
  }

  alerts(channel?: string) {
    return this.replies.filter((r) => r.metadata.event_payload.kind === 'alert' && (!channel || r.channel === channel));
  }

  summaries() {
    return this.replies.filter((r) => r.metadata.event_payload.kind === 'summary');
  }
}

interface ChatBehaviour {
  /** Called where the replica dies (its claim is in the store by then). */
  died?: () => void;
  /** The replica dies in `reply`: before the message goes out, or just after. */
  crashInReply?: 'before-post' | 'after-post';
  crashInPostCard?: 'before-post' | 'after-post';
  /** What findReply answers; by default, what Slack holds. */
  findReply?: boolean;
  /** Holds each reply until the gate opens (another replica gets in meanwhile). */
  replyGate?: Promise<void>;
  /** Called as a reply starts (its alert is claimed by then). */
  replying?: () => void;
  failNotify?: boolean;
  /** The next card posts fail with a temporary error (not a refusal). */
  failPostCard?: number;
}

const sameMetadata = (a: WatchMetadata, b: WatchMetadata) => JSON.stringify(a) === JSON.stringify(b);

function chatFor(slack: FakeSlack, behaviour: ChatBehaviour = {}): WatchChat<Msg> {
  const dieHere = <T>() => {
    behaviour.died?.();
    return never<T>();
  };
  const refuse = (channel: string) => {
    const code = slack.refusing.get(channel);
    if (code) throw new Refusal(code);
  };
  return {
    postCard: async (channel, message, metadata) => {
      refuse(channel);
      if ((behaviour.failPostCard ?? 0) > 0) {
        behaviour.failPostCard = (behaviour.failPostCard ?? 0) - 1;
        throw new Error('An API error occurred: internal_error');
      }
      if (behaviour.crashInPostCard === 'before-post') return dieHere();
      const ts = slack.nextTs();
      slack.cards.push({ channel, ts, message, metadata });
      if (behaviour.crashInPostCard === 'after-post') return dieHere();
      return ts;
    },
    updateCard: async (channel, ts, message) => {
      refuse(channel);
      slack.updates.push({ channel, ts, message });
    },
    reply: async (channel, threadTs, message, { broadcast, metadata }) => {
      behaviour.replying?.();
      await behaviour.replyGate;
      refuse(channel);
      if (slack.failingReplies > 0) {
        slack.failingReplies -= 1;
        throw new Error('An API error occurred: internal_error');
      }
      if (behaviour.crashInReply === 'before-post') return dieHere();
      slack.replies.push({ channel, threadTs, message, broadcast, metadata });
      if (behaviour.crashInReply === 'after-post') return dieHere();
    },
    findCard: async (channel, metadata, sinceMs) =>
      slack.cards.find((c) => c.channel === channel && sameMetadata(c.metadata, metadata) && sinceMs <= T0 + 100 * DAY)
        ?.ts,
    findReply: async (channel, threadTs, metadata) => {
      slack.findReplyCalls.push({ channel, threadTs, metadata });
      if (behaviour.findReply !== undefined) return behaviour.findReply;
      return slack.replies.some(
        (r) => r.channel === channel && r.threadTs === threadTs && sameMetadata(r.metadata, metadata),
      );
    },
    notify: async (userId, message) => {
      if (behaviour.failNotify) throw new Error('cannot open a DM');
      slack.notices.push({ userId, message });
    },
    channelRefusal: (error) => (error instanceof Refusal ? error.code : undefined),
  };
}

/** The report endpoint, as far as watches see it: figures a test sets, and whether a slot is spare. */
class FakeReports implements WatchReports {
  figures = new Map<string, EventReport>();
  spareCalls: string[] = [];
  /** undefined: a slot is spare; 'none': none is; 'throw': the call fails; 'hang': the replica dies in it; 'gone': 404. */
  mode: 'spare' | 'none' | 'throw' | 'hang' | 'gone' = 'spare';

  set(eventId: string, fields: Record<string, unknown>): EventReport {
    const report = simulatorReport(eventId, fields);
    this.figures.set(eventId, report);
    return report;
  }

  async spare(eventId: string): Promise<EventReport | undefined> {
    this.spareCalls.push(eventId);
    if (this.mode === 'none') return undefined;
    if (this.mode === 'throw') throw new Error('report call failed: 503');
    if (this.mode === 'gone') throw new GoneError();
    if (this.mode === 'hang') return never();
    return this.figures.get(eventId) ?? simulatorReport(eventId, {});
  }

  isNotFound(error: unknown): boolean {
    return error instanceof GoneError;
  }
}

/** The report endpoint's 404: the service has no such event. */
class GoneError extends Error {
  constructor() {
    super('report call failed: 404');
  }
}

/** A report shaped like the simulator's (src/simulator/report.ts). */
function simulatorReport(eventId: string, fields: Record<string, unknown>): EventReport {
  return {
    eventId,
    eventName: 'Jazz Night',
    currency: 'EUR',
    generatedAt: new Date(T0).toISOString(),
    ticketsSold: 300,
    capacity: 1000,
    grossRevenue: 12_000,
    netRevenue: 11_280,
    checkIns: 0,
    refunds: 6,
    byCategory: [{ id: 'tcat_1', name: 'General', price: 40, capacity: 1000, sold: 300, revenue: 12_000 }],
    salesByDay: [{ date: '2026-11-30', sold: 300 }],
    promos: [{ id: 'promo_early', code: 'EARLYBIRD', redeemed: 10, quantity: 100 }],
    ...fields,
  };
}

/**
 * The store as a replica whose hold on an event's check lapsed sees it: its sections wait for no
 * one. Across processes a replica that dies (or is stuck for ten lives of the lock) frees the event
 * for the others once its Redis lock lapses; in this one process its section would be held for good.
 */
function lapsedHold(inner: KeyValueStore): KeyValueStore {
  return { ...inner, section: (_key, work) => work() };
}

/** A claim store that remembers which keys were claimed (to look at the claims a crash left). */
function recordingClaims(inner: ClaimStore, keys: string[]): ClaimStore {
  return {
    claim: (key, owner, at) => {
      keys.push(key);
      return inner.claim(key, owner, at);
    },
    settle: (key, owner, state, at) => inner.settle(key, owner, state, at),
    get: (key) => inner.get(key),
    release: (key, owner) => inner.release(key, owner),
    takeOver: (key, expected: Claim, owner, at) => inner.takeOver(key, expected, owner, at),
    prune: (before) => inner.prune(before),
  };
}

interface Clock {
  t: number;
  now(): number;
}

const manualClock = (t = T0): Clock => {
  const clock = { t, now: () => clock.t };
  return clock;
};

interface Harness {
  opened: StoreHandle;
  store: WatchStore;
  slack: FakeSlack;
  reports: FakeReports;
  clock: Clock;
  claimedKeys: string[];
  checks: { source: 'watch' | 'person'; since: number | undefined }[];
  alertKinds: WatchCondition['kind'][];
  /** A replica: its own service (owner id) over the shared store, Slack and report endpoint. */
  replica(
    behaviour?: ChatBehaviour,
    options?: {
      clock?: Clock;
      reports?: WatchReports;
      leaseMs?: number;
      eventDates?: WatchServiceOptions<Msg>['eventDates'];
      /** Its hold on an event's check lapsed (see `lapsedHold`): it carries checks beside the others'. */
      lapsed?: boolean;
    },
  ): WatchService<Msg>;
  /** What `replica()` builds a service from, to build one with other options. */
  options(): WatchServiceOptions<Msg>;
}

async function harness(): Promise<Harness> {
  const opened = await openStore('sqlite://:memory:');
  cleanup.push(() => opened.close());
  const store = new WatchStore(opened.keyValue, silentLogger);
  const slack = new FakeSlack();
  const reports = new FakeReports();
  const clock = manualClock();
  const claimedKeys: string[] = [];
  const claims = recordingClaims(opened.claims, claimedKeys);
  const checks: Harness['checks'] = [];
  const alertKinds: Harness['alertKinds'] = [];
  return {
    opened,
    store,
    slack,
    reports,
    clock,
    claimedKeys,
    checks,
    alertKinds,
    options: () => ({
      store,
      claims,
      chat: chatFor(slack),
      messages,
      reports,
      rule: RULE,
      clock,
      logger: silentLogger,
      leaseMs: LEASE,
    }),
    replica: (behaviour = {}, options = {}) => {
      const serviceOptions: WatchServiceOptions<Msg> = {
        store: behaviour.died || options.lapsed ? new WatchStore(lapsedHold(opened.keyValue), silentLogger) : store,
        claims,
        chat: chatFor(slack, behaviour),
        messages,
        reports: options.reports ?? reports,
        rule: RULE,
        clock: options.clock ?? clock,
        logger: silentLogger,
        leaseMs: options.leaseMs ?? LEASE,
        onCheck: (source, since) => checks.push({ source, since }),
        onAlert: (kind) => alertKinds.push(kind),
        ...(options.eventDates ? { eventDates: options.eventDates } : {}),
      };
      return new WatchService<Msg>(serviceOptions);
    },
  };
}

const EVENT = { id: 'evt_jazz', name: 'Jazz Night', startsAtMs: T0 + 7 * DAY, endsAtMs: T0 + 7 * DAY + 3 * HOUR };
const OTHER = { id: 'evt_rock', name: 'Rock Night', startsAtMs: T0 + 14 * DAY, endsAtMs: T0 + 14 * DAY + 3 * HOUR };

const soldAtLeast = (value: number): WatchCondition => ({ kind: 'figure', field: 'ticketsSold', op: '>=', value });

function request(conditions: WatchCondition[], overrides: Partial<Parameters<WatchService<Msg>['watch']>[0]> = {}) {
  return { channel: 'C0OPS', personal: false, event: EVENT, userId: 'U0ALICE', conditions, ...overrides };
}

/** A reply held at a gate: `aReplying` resolves as it starts (its alert claimed), `open` lets it go. */
function heldReply() {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let replying: () => void = () => undefined;
  const aReplying = new Promise<void>((resolve) => {
    replying = resolve;
  });
  return { gate, open: () => open(), replying: () => replying(), aReplying };
}

const stateOf = async (h: Harness, key: string, channel = 'C0OPS', eventId = EVENT.id) =>
  (await h.store.get(channel, eventId))?.conditions.find((c) => c.key === key);

describe('WatchService: the card', () => {
  it('posts one card when the watch is set, then edits it at each check and each change', async () => {
    const h = await harness();
    const service = h.replica();
    const result = await service.watch(request([soldAtLeast(400)]));
    expect(result).toMatchObject({ added: ['ticketsSold >= 400'], already: [], intervalMs: INTERVAL });
    expect(h.slack.cards).toHaveLength(1);
    const card = h.slack.cards[0] as FakeSlack['cards'][number];
    expect(card).toMatchObject({
      channel: 'C0OPS',
      message: { kind: 'card', state: 'active', eventId: EVENT.id, checks: undefined },
      metadata: { event_type: 'eventops_watch', event_payload: { kind: 'card', watch: `watch:C0OPS:${EVENT.id}` } },
    });
    expect(result.watch.cardTs).toBe(card.ts);
    expect((await h.store.get('C0OPS', EVENT.id))?.cardTs).toBe(card.ts);

    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    h.clock.t += INTERVAL;
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.slack.updates.map((u) => [u.ts, (u.message as { checks?: number }).checks])).toEqual([
      [card.ts, 1],
      [card.ts, 2],
    ]);

    const again = await service.watch(request([soldAtLeast(400), { kind: 'sold-out' }], { userId: 'U0BOB' }));
    expect(again).toMatchObject({ added: ['sold out'], already: ['ticketsSold >= 400'] });
    expect(again.watch.setBy).toBe('U0ALICE');
    expect(again.watch.conditions.map((c) => [c.key, c.addedBy])).toEqual([
      ['ticketsSold >= 400', 'U0ALICE'],
      ['sold out', 'U0BOB'],
    ]);
    expect(h.slack.cards).toHaveLength(1);
    expect(h.slack.updates).toHaveLength(3);
    expect(h.slack.updates.every((u) => u.ts === card.ts)).toBe(true);
  });

  it('keeps one card per event and conversation: another channel gets its own, the same one does not', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    await service.watch(request([soldAtLeast(400)], { channel: 'C0MARKETING' }));
    await service.watch(request([{ kind: 'sold-out' }], { event: OTHER }));
    await service.watch(request([{ kind: 'sold-out' }]));
    expect(h.slack.cards.map((c) => [c.channel, c.message.kind === 'card' && c.message.eventId])).toEqual([
      ['C0OPS', EVENT.id],
      ['C0MARKETING', EVENT.id],
      ['C0OPS', OTHER.id],
    ]);
    // One check of the event serves both of its cards.
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.reports.spareCalls).toEqual([EVENT.id]);
    expect(h.slack.updates.filter((u) => u.message.kind === 'card' && u.message.checks === 1)).toHaveLength(2);
  });

  it('two replicas setting up the same watch at once post one card', async () => {
    const h = await harness();
    const [a, b] = [h.replica(), h.replica()];
    const [ra, rb] = await Promise.all([
      a.watch(request([soldAtLeast(400)])),
      b.watch(request([{ kind: 'sold-out' }], { userId: 'U0BOB' })),
    ]);
    expect(h.slack.cards).toHaveLength(1);
    const stored = (await h.store.get('C0OPS', EVENT.id)) as Watch;
    expect(stored.cardTs).toBe(h.slack.cards[0]?.ts);
    expect(stored.conditions.map((c) => c.key).sort()).toEqual(['sold out', 'ticketsSold >= 400']);
    expect(ra.watch.createdAt).toBe(rb.watch.createdAt);
  });

  it('a replica that died after posting the card: the next one finds it by its metadata and posts none', async () => {
    const h = await harness();
    const { behaviour, dead } = dying({ crashInPostCard: 'after-post' });
    void h.replica(behaviour).watch(request([soldAtLeast(400)]));
    await dead;
    expect(h.slack.cards).toHaveLength(1);
    const survivor = h.replica();
    // Within the lease the card is still the dead replica's.
    await survivor.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(h.slack.cards).toHaveLength(1);
    h.clock.t += LEASE + 1;
    await survivor.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(h.slack.cards).toHaveLength(1);
    expect((await h.store.get('C0OPS', EVENT.id))?.cardTs).toBe(h.slack.cards[0]?.ts);
    // The next check edits that card.
    h.clock.t += MINUTE;
    await survivor.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(h.slack.cards).toHaveLength(1);
    expect(h.slack.updates.at(-1)?.ts).toBe(h.slack.cards[0]?.ts);
  });

  // Regression: a card recovered from a dead replica kept the figures it was posted with until
  // the next check.
  it('the check that recovers a card a dead replica posted shows its figures on it', async () => {
    const h = await harness();
    const { behaviour, dead } = dying({ crashInPostCard: 'after-post' });
    void h.replica(behaviour).watch(request([soldAtLeast(400)]));
    await dead;
    h.clock.t += LEASE + 1;
    await h.replica().observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(h.slack.updates.map((u) => [u.ts, u.message.kind === 'card' && u.message.checks])).toEqual([
      [h.slack.cards[0]?.ts, 1],
    ]);
  });

  it('a replica that died before posting the card: the next one posts it, once', async () => {
    const h = await harness();
    const { behaviour, dead } = dying({ crashInPostCard: 'before-post' });
    void h.replica(behaviour).watch(request([soldAtLeast(400)]));
    await dead;
    expect(h.slack.cards).toHaveLength(0);
    h.clock.t += LEASE + 1;
    const survivor = h.replica();
    await survivor.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    await survivor.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(h.slack.cards).toHaveLength(1);
    expect((await h.store.get('C0OPS', EVENT.id))?.cardTs).toBe(h.slack.cards[0]?.ts);
  });

  it('unwatch ends the watch and its card says who ended it', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    const ended = await service.unwatch('C0OPS', EVENT.id, 'U0BOB');
    expect(ended?.eventId).toBe(EVENT.id);
    expect(h.slack.updates.at(-1)?.message).toMatchObject({ kind: 'card', state: 'unwatched' });
    expect(await h.store.get('C0OPS', EVENT.id)).toBeUndefined();
    expect(await service.unwatch('C0OPS', EVENT.id, 'U0BOB')).toBeUndefined();
    expect(await service.turn()).toEqual({ kind: 'idle', nextAt: undefined });
  });

  it('lists watches by conversation and by the person who set them up or added a condition', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    await service.watch(request([{ kind: 'sold-out' }], { channel: 'C0MARKETING', userId: 'U0BOB' }));
    await service.watch(request([{ kind: 'sold-out' }], { userId: 'U0BOB' }));
    const ids = async (filter: { channel?: string; setBy?: string }) =>
      (await service.list(filter)).map(({ watch }) => watch.channel).sort();
    expect(await ids({ channel: 'C0OPS' })).toEqual(['C0OPS']);
    expect(await ids({ setBy: 'U0BOB' })).toEqual(['C0MARKETING', 'C0OPS']);
    expect(await ids({ setBy: 'U0ALICE' })).toEqual(['C0OPS']);
    expect(await ids({})).toEqual(['C0MARKETING', 'C0OPS']);
  });
});

describe('WatchService: alerts', () => {
  it('alerts once per crossing, in the card thread, re-arming only once the figure has clearly cleared', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    const cardTs = h.slack.cards[0]?.ts;
    const sold = async (ticketsSold: number) => {
      h.clock.t += MINUTE;
      await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold }));
      return h.slack.alerts().length;
    };
    expect(await sold(390)).toBe(0);
    expect(await sold(400)).toBe(1);
    expect(await sold(398)).toBe(1); // under, but not clearly: not re-armed
    expect(await sold(401)).toBe(1);
    expect(await sold(395)).toBe(1);
    expect(await sold(391)).toBe(1); // clearly under (2% margin): re-armed
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: true, crossings: 1, lastValue: 391 });
    expect(await sold(405)).toBe(2);
    expect(await sold(420)).toBe(2);

    expect(h.slack.alerts().map((a) => [a.threadTs, a.broadcast, a.message, a.metadata.event_payload])).toEqual([
      [
        cardTs,
        true,
        { kind: 'alert', condition: 'ticketsSold >= 400', value: 400 },
        expect.objectContaining({ kind: 'alert', condition: 'ticketsSold >= 400', crossing: 1 }),
      ],
      [
        cardTs,
        true,
        { kind: 'alert', condition: 'ticketsSold >= 400', value: 405 },
        expect.objectContaining({ kind: 'alert', condition: 'ticketsSold >= 400', crossing: 2 }),
      ],
    ]);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: false, crossings: 2, lastValue: 420 });
    expect(h.alertKinds).toEqual(['figure', 'figure']);
    expect(h.slack.cards).toHaveLength(1);
  });

  it('broadcasts threshold crossings to the channel and keeps movement in the thread', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(
      request([
        { kind: 'sold-share', percent: 90 },
        { kind: 'sold-out' },
        { kind: 'left', code: 'EARLYBIRD', max: 10, unit: 'count' },
        { kind: 'sold-since', count: 50 },
        { kind: 'stall', hours: 6 },
      ]),
    );
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 900 }));
    h.clock.t += 7 * HOUR;
    await service.observe(
      EVENT.id,
      h.reports.set(EVENT.id, {
        ticketsSold: 1000,
        promos: [{ id: 'promo_early', code: 'EARLYBIRD', redeemed: 95, quantity: 100 }],
      }),
    );
    h.clock.t += 7 * HOUR;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 1000 }));
    const broadcast = Object.fromEntries(
      h.slack.alerts().map((a) => [(a.message as { condition: string }).condition, a.broadcast]),
    );
    expect(broadcast).toEqual({
      'sold >= 90%': true,
      'sold out': true,
      'EARLYBIRD left <= 10': true,
      '+50 sold since the last check': false,
      'no sale for 6h': false,
    });
    expect(h.alertKinds.sort()).toEqual(['left', 'sold-out', 'sold-share', 'sold-since', 'stall']);
  });

  it('says which condition a report cannot check, and checks it again once a report has the figure', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([{ kind: 'figure', field: 'checkIns', op: '>=', value: 100 }]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: undefined }));
    expect(await stateOf(h, 'checkIns >= 100')).toMatchObject({ unknown: 'the report has no checkIns', armed: true });
    const card = h.slack.updates.at(-1)?.message;
    expect(card?.kind === 'card' && card.conditions[0]?.unknown).toBe('the report has no checkIns');
    h.clock.t += MINUTE;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 120 }));
    expect(await stateOf(h, 'checkIns >= 100')).toMatchObject({ armed: false, crossings: 1, lastValue: 120 });
    expect((await stateOf(h, 'checkIns >= 100'))?.unknown).toBeUndefined();
    expect(h.slack.alerts()).toHaveLength(1);
  });

  it('retries an alert whose post failed for a while, at a check a window later, and posts it once', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    h.slack.failingReplies = 1;
    const report = h.reports.set(EVENT.id, { ticketsSold: 450 });
    await service.observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(0);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: true, crossings: 0 });
    expect((await h.store.get('C0OPS', EVENT.id))?.paused).toBeUndefined();
    // Within the window the failed attempt is left alone.
    h.clock.t += RULE.windowMs - 1;
    await service.observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(0);
    h.clock.t += 1;
    await service.observe(EVENT.id, report);
    h.clock.t += RULE.windowMs;
    await service.observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(1);
    expect(h.slack.alerts()[0]?.metadata.event_payload.crossing).toBe(1);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: false, crossings: 1 });
    expect(h.slack.notices).toHaveLength(0);
  });

  it('two replicas applying the same crossing one after the other post one alert', async () => {
    const h = await harness();
    const [a, b] = [h.replica(), h.replica()];
    await a.watch(request([soldAtLeast(400)]));
    const report = h.reports.set(EVENT.id, { ticketsSold: 410 });
    await a.observe(EVENT.id, report);
    h.clock.t += 1;
    await b.observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(1);
  });

  it('two replicas applying the same crossing at once post one alert', async () => {
    const h = await harness();
    // A's reply is held until B has seen the crossing too: both claim it while it is in flight.
    const { gate, open, replying, aReplying } = heldReply();
    const a = h.replica({ replyGate: gate, replying });
    const clockB = manualClock(T0 + 1);
    // Only a replica whose hold on the event's check lapsed carries a check beside another's.
    const b = h.replica({}, { clock: clockB, lapsed: true });
    await a.watch(request([soldAtLeast(400), { kind: 'sold-out' }]));
    const report = h.reports.set(EVENT.id, { ticketsSold: 1000 });
    const first = a.observe(EVENT.id, report);
    await aReplying;
    await b.observe(EVENT.id, report);
    open();
    await first;
    expect(
      h.slack
        .alerts()
        .map((r) => (r.message as { condition: string }).condition)
        .sort(),
    ).toEqual(['sold out', 'ticketsSold >= 400']);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: false, crossings: 1 });
    expect(await stateOf(h, 'sold out')).toMatchObject({ armed: false, crossings: 1 });
    // Later checks on both replicas add nothing.
    h.clock.t += MINUTE;
    clockB.t += 2 * MINUTE;
    await Promise.all([a.observe(EVENT.id, report), b.observe(EVENT.id, report)]);
    expect(h.slack.alerts()).toHaveLength(2);
  });

  it('a reply Slack is slow to take keeps its alert claimed past the lease: no second replica posts it', async () => {
    const h = await harness();
    const { gate, open, replying, aReplying } = heldReply();
    // A renews its claims every 50 ms of real time; B judges them by the usual lease.
    const a = h.replica({ replyGate: gate, replying }, { leaseMs: 100 });
    await a.watch(request([soldAtLeast(400)]));
    const report = h.reports.set(EVENT.id, { ticketsSold: 450 });
    const first = a.observe(EVENT.id, report);
    await aReplying;
    // Slack holds A's reply for longer than a lease: a claim not renewed would look abandoned.
    h.clock.t += LEASE + 1;
    const claimKey = `watch-alert:C0OPS:${EVENT.id}:${T0}:ticketsSold >= 400:1`;
    await waitFor(async () => (await h.opened.claims.get(claimKey))?.at === h.clock.t, {
      what: 'A to renew its claim',
      timeoutMs: 5_000,
    });
    // A's hold on the event's check lapsed meanwhile (a Redis lock lives ten lives at most).
    await h.replica({}, { lapsed: true }).observe(EVENT.id, report);
    open();
    await first;
    expect(h.slack.alerts()).toHaveLength(1);
    expect(await h.opened.claims.get(claimKey)).toMatchObject({ state: 'done' });
  });

  it('three replicas taking turns at once: one check per due time, one alert per crossing', async () => {
    const h = await harness();
    const replicas = [h.replica(), h.replica(), h.replica()];
    await replicas[0]?.watch(request([soldAtLeast(400)]));
    h.reports.set(EVENT.id, { ticketsSold: 450 });
    const turns = await Promise.all(replicas.map((r) => r.turn()));
    expect(turns.filter((t) => t.kind === 'checked')).toHaveLength(1);
    // The others found the due time claimed, or (their turn read the schedule after the check was
    // recorded) nothing due: either way no second check.
    expect(
      turns.filter((t) => t.kind !== 'checked').every((t) => t.kind === 'claimed-elsewhere' || t.kind === 'idle'),
    ).toBe(true);
    expect(h.reports.spareCalls).toHaveLength(1);
    expect(h.slack.alerts()).toHaveLength(1);
    expect((await h.store.lastCheck(EVENT.id))?.checks).toBe(1);
  });
});

describe('WatchService: a crash between claiming an alert and settling it', () => {
  /** Replica A claims the crossing's alert and dies in `reply`; the lease then runs out. */
  async function crashed(h: Harness, when: 'before-post' | 'after-post') {
    const setUp = h.replica();
    await setUp.watch(request([soldAtLeast(400)]));
    const report = h.reports.set(EVENT.id, { ticketsSold: 420 });
    const { behaviour, dead } = dying({ crashInReply: when });
    void h.replica(behaviour).observe(EVENT.id, report);
    await dead;
    const key = h.claimedKeys.find((k) => k.startsWith('watch-alert:')) as string;
    expect(key).toBe(`watch-alert:C0OPS:${EVENT.id}:${T0}:ticketsSold >= 400:1`);
    expect(await h.opened.claims.get(key)).toMatchObject({ state: 'claimed', at: T0 });
    return { key, report };
  }

  it('within the lease, another replica does not post and the condition stays armed', async () => {
    const h = await harness();
    const { report } = await crashed(h, 'before-post');
    h.clock.t += LEASE - 1;
    await h.replica().observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(0);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: true, crossings: 0 });
  });

  it('the alert had gone out (findReply answers true): the next replica settles it without posting again', async () => {
    const h = await harness();
    const { key, report } = await crashed(h, 'after-post');
    expect(h.slack.alerts()).toHaveLength(1);
    h.clock.t += LEASE + 1;
    await h.replica().observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(1);
    expect(h.slack.findReplyCalls).toHaveLength(1);
    expect(h.slack.findReplyCalls[0]?.metadata.event_payload).toMatchObject({
      kind: 'alert',
      condition: 'ticketsSold >= 400',
      crossing: 1,
    });
    expect(await h.opened.claims.get(key)).toMatchObject({ state: 'done' });
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: false, crossings: 1 });
    h.clock.t += MINUTE;
    await h.replica().observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(1);
  });

  it('the alert had not gone out (findReply answers false): the next replica posts it once', async () => {
    const h = await harness();
    const { key, report } = await crashed(h, 'before-post');
    expect(h.slack.alerts()).toHaveLength(0);
    h.clock.t += LEASE + 1;
    const survivor = h.replica();
    await survivor.observe(EVENT.id, report);
    h.clock.t += MINUTE;
    await survivor.observe(EVENT.id, report);
    expect(h.slack.alerts()).toHaveLength(1);
    expect(h.slack.findReplyCalls).toHaveLength(1);
    expect(await h.opened.claims.get(key)).toMatchObject({ state: 'done' });
    expect(h.alertKinds).toEqual(['figure']);
  });

  it('trusts findReply: true means no post even if this fake Slack holds none, false means one post', async () => {
    for (const answer of [true, false]) {
      const h = await harness();
      const { report } = await crashed(h, 'before-post');
      h.clock.t += LEASE + 1;
      await h.replica({ findReply: answer }).observe(EVENT.id, report);
      expect(h.slack.alerts(), String(answer)).toHaveLength(answer ? 0 : 1);
      expect(await stateOf(h, 'ticketsSold >= 400'), String(answer)).toMatchObject({ armed: false, crossings: 1 });
    }
  });

  it('a replica killed mid-check: its due time is taken over after the lease and checked once', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    const dying = new FakeReports();
    dying.mode = 'hang';
    void h.replica({}, { reports: dying }).turn();
    // Polled: the store answers from SQLite's thread pool, not in one tick.
    await waitFor(() => dying.spareCalls.length === 1, {
      what: 'the dying replica to ask for its report',
      timeoutMs: 5_000,
      intervalMs: 1,
    });
    const survivor = h.replica();
    expect(await survivor.turn()).toEqual({ kind: 'claimed-elsewhere', eventId: EVENT.id });
    h.clock.t += LEASE + 1;
    expect(await survivor.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(await survivor.turn()).toEqual({ kind: 'idle', nextAt: h.clock.t + INTERVAL });
    expect(h.reports.spareCalls).toEqual([EVENT.id]);
  });
});

describe('WatchService: a channel that refuses posts', () => {
  it('does not DM an owner who muted the watch that it is paused (issue 37: mute for me)', async () => {
    const h = await harness();
    const service = new WatchService<Msg>({
      ...h.options(),
      quieting: new AlertQuieting(h.store, h.opened.keyValue, h.clock),
    });
    await service.watch(request([soldAtLeast(400)]));
    expect(await service.quieting?.toggleMute('C0OPS', EVENT.id, 'U0ALICE')).toBe(true);
    h.slack.refusing.set('C0OPS', 'is_archived');
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 1000 }));
    expect((await h.store.get('C0OPS', EVENT.id))?.paused?.reason).toBe('is_archived');
    expect(h.slack.notices).toEqual([]);
  });

  it('pauses the watch when an alert is refused and tells the person who set it up, once', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400), { kind: 'sold-out' }]));
    await service.watch(request([soldAtLeast(400)], { channel: 'C0MARKETING', userId: 'U0BOB' }));
    h.slack.refusing.set('C0OPS', 'is_archived');
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 1000 }));
    const paused = await h.store.get('C0OPS', EVENT.id);
    expect(paused?.paused).toEqual({ reason: 'is_archived', at: T0 });
    expect(h.slack.notices).toEqual([{ userId: 'U0ALICE', message: { kind: 'paused', reason: 'is_archived' } }]);
    // The other channel's watch of the same event goes on.
    expect(h.slack.alerts('C0MARKETING')).toHaveLength(1);

    // No more checks, posts or notices for the paused one.
    const updatesBefore = h.slack.updates.filter((u) => u.channel === 'C0OPS').length;
    for (let i = 0; i < 3; i++) {
      h.clock.t += INTERVAL;
      await service.turn();
      await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 1000 }));
    }
    expect(h.slack.notices).toHaveLength(1);
    expect(h.slack.updates.filter((u) => u.channel === 'C0OPS')).toHaveLength(updatesBefore);
    expect(h.slack.alerts('C0OPS')).toHaveLength(0);
    expect(await service.intervalMs()).toBe(INTERVAL);
  });

  it('pauses a watch whose card is refused as it is set up, and tells its owner once', async () => {
    const h = await harness();
    const service = h.replica();
    h.slack.refusing.set('C0OPS', 'not_in_channel');
    const result = await service.watch(request([soldAtLeast(400)]));
    expect(result.watch.paused).toEqual({ reason: 'not_in_channel', at: T0 });
    expect(h.slack.cards).toHaveLength(0);
    expect(h.slack.notices).toEqual([{ userId: 'U0ALICE', message: { kind: 'paused', reason: 'not_in_channel' } }]);
    expect(await service.turn()).toEqual({ kind: 'idle', nextAt: undefined });
    await service.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(h.reports.spareCalls).toHaveLength(0);
    expect(await h.store.lastCheck(EVENT.id)).toBeUndefined();

    // Set again once the channel takes posts: a fresh watch and card, keeping its conditions.
    h.slack.refusing.clear();
    h.clock.t += MINUTE;
    const again = await service.watch(request([{ kind: 'sold-out' }], { userId: 'U0BOB' }));
    expect(again.watch.paused).toBeUndefined();
    expect(again.watch.createdAt).toBe(T0 + MINUTE);
    expect(again.watch.conditions.map((c) => c.key)).toEqual(['ticketsSold >= 400', 'sold out']);
    expect(h.slack.cards).toHaveLength(1);
  });

  it('pauses when the card edit of a check is refused', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    h.slack.refusing.set('C0OPS', 'channel_not_found');
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect((await h.store.get('C0OPS', EVENT.id))?.paused?.reason).toBe('channel_not_found');
    expect(h.slack.notices).toHaveLength(1);
  });

  it('a notice that cannot be sent does not break the check', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    h.slack.refusing.set('C0OPS', 'is_archived');
    const service = h.replica({ failNotify: true });
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect((await h.store.get('C0OPS', EVENT.id))?.paused?.reason).toBe('is_archived');
  });

  it('two replicas refused at once tell the owner once', async () => {
    const h = await harness();
    const [a, b] = [h.replica(), h.replica({}, { clock: manualClock(T0 + 1) })];
    await a.watch(request([soldAtLeast(400)]));
    h.slack.refusing.set('C0OPS', 'is_archived');
    const report = h.reports.set(EVENT.id, { ticketsSold: 500 });
    await Promise.all([a.observe(EVENT.id, report), b.observe(EVENT.id, report)]);
    expect(h.slack.notices).toHaveLength(1);
  });
});

describe('WatchService: the end of the event', () => {
  it('posts a summary in the thread, marks the card ended and removes the watch at the next turn', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    await service.watch(request([soldAtLeast(400)], { event: OTHER }));
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    const cardTs = h.slack.cards[0]?.ts;
    h.clock.t = EVENT.endsAtMs;
    await service.turn();
    expect(h.slack.summaries()).toEqual([
      {
        channel: 'C0OPS',
        threadTs: cardTs,
        message: { kind: 'summary', eventId: EVENT.id, checks: 1 },
        broadcast: false,
        metadata: expect.objectContaining({ event_payload: expect.objectContaining({ kind: 'summary' }) }),
      },
    ]);
    expect(h.slack.updates.filter((u) => u.ts === cardTs).at(-1)?.message).toMatchObject({
      kind: 'card',
      state: 'ended',
    });
    expect(await h.store.get('C0OPS', EVENT.id)).toBeUndefined();
    expect(await h.store.lastCheck(EVENT.id)).toBeUndefined();
    expect(await h.store.get('C0OPS', OTHER.id)).toBeDefined();

    h.clock.t += INTERVAL;
    await service.turn();
    await service.turn();
    expect(h.slack.summaries()).toHaveLength(1);
    expect(h.reports.spareCalls.slice(1)).not.toContain(EVENT.id);
  });

  it('follows the event’s dates as the catalog has them: a postponed event’s watch goes on past the old end, and ends at the new one', async () => {
    const h = await harness();
    type Dates = { startsAtMs: number; endsAtMs: number; asOf: number };
    const dates = new Map<string, Dates>([
      [EVENT.id, { startsAtMs: EVENT.startsAtMs, endsAtMs: EVENT.endsAtMs, asOf: T0 - MINUTE }],
    ]);
    const listed = (found: Dates | undefined) => found && { listed: true as const, endsOn: undefined, ...found };
    const service = h.replica({}, { eventDates: (id) => listed(dates.get(id)) });
    // A replica whose catalog is an hour behind still has the old dates.
    const behind = new Map<string, Dates>();
    const lagging = h.replica({}, { eventDates: (id) => listed(behind.get(id)) });
    await service.watch(request([soldAtLeast(400)]));
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    // Postponed by a week after the watch was set, read by a crawl a day later.
    const postponed = { startsAtMs: EVENT.startsAtMs + 7 * DAY, endsAtMs: EVENT.endsAtMs + 7 * DAY };
    dates.set(EVENT.id, { ...postponed, asOf: T0 + DAY });
    behind.set(EVENT.id, { startsAtMs: EVENT.startsAtMs, endsAtMs: EVENT.endsAtMs, asOf: T0 + DAY - HOUR });
    h.clock.t = EVENT.endsAtMs + HOUR;
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.slack.summaries()).toHaveLength(0);
    expect(await h.store.get('C0OPS', EVENT.id)).toMatchObject(postponed);
    // The replica behind does not move them back, nor end the watch on the old dates.
    h.clock.t += INTERVAL;
    await lagging.turn();
    expect(h.slack.summaries()).toHaveLength(0);
    expect(await h.store.get('C0OPS', EVENT.id)).toMatchObject(postponed);
    // Not in the catalog now (a failed crawl): the dates it last had stand.
    dates.delete(EVENT.id);
    h.clock.t = postponed.endsAtMs;
    await service.turn();
    expect(h.slack.summaries()).toHaveLength(1);
    expect(await h.store.get('C0OPS', EVENT.id)).toBeUndefined();
  });

  it('across replicas the summary goes out once', async () => {
    const h = await harness();
    const replicas = [h.replica(), h.replica(), h.replica()];
    await replicas[0]?.watch(request([soldAtLeast(400)]));
    h.clock.t = EVENT.endsAtMs + 1;
    await Promise.all(replicas.map((r) => r.turn()));
    await Promise.all(replicas.map((r) => r.turn()));
    expect(h.slack.summaries()).toHaveLength(1);
    expect(await h.store.all()).toEqual([]);
  });

  it('a replica that died after posting the summary: the next one does not post it again', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    h.clock.t = EVENT.endsAtMs + 1;
    const { behaviour, dead } = dying({ crashInReply: 'after-post' });
    void h.replica(behaviour).turn();
    await dead;
    expect(h.slack.summaries()).toHaveLength(1);
    h.clock.t += LEASE + 1;
    await h.replica().turn();
    expect(h.slack.summaries()).toHaveLength(1);
    expect(await h.store.all()).toEqual([]);
  });

  // Regression: a paused watch (a channel that refused posts) outlived its event forever.
  it('drops a paused watch once its event is over', async () => {
    const h = await harness();
    const service = h.replica();
    h.slack.refusing.set('C0OPS', 'is_archived');
    await service.watch(request([soldAtLeast(400)]));
    expect((await h.store.get('C0OPS', EVENT.id))?.paused).toBeDefined();
    h.clock.t = EVENT.endsAtMs + DAY;
    await service.turn();
    expect(await h.store.get('C0OPS', EVENT.id)).toBeUndefined();
  });
});

describe('WatchService: checks and report slots', () => {
  it('counts a report a person fetched as a check: no report call of its own until the next due time', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 410 }));
    expect(h.checks).toEqual([{ source: 'person', since: undefined }]);
    expect(h.slack.alerts()).toHaveLength(1);
    expect(await service.turn()).toEqual({ kind: 'idle', nextAt: T0 + INTERVAL });
    expect(await service.nextCheckAt(EVENT.id)).toBe(T0 + INTERVAL);
    h.clock.t += INTERVAL - 1;
    expect(await service.turn()).toMatchObject({ kind: 'idle' });
    expect(h.reports.spareCalls).toEqual([]);
    h.clock.t += 1;
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.reports.spareCalls).toEqual([EVENT.id]);
    expect(h.checks).toEqual([
      { source: 'person', since: undefined },
      { source: 'watch', since: INTERVAL },
    ]);
  });

  it('ignores a report of an event no one watches, and an older report than the last check', async () => {
    const h = await harness();
    const service = h.replica();
    await service.observe(EVENT.id, h.reports.set(EVENT.id, {}));
    expect(await service.lastCheck(EVENT.id)).toBeUndefined();
    expect(h.checks).toEqual([]);
    await service.watch(request([soldAtLeast(400)]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 350 }));
    // Another replica read a report at the same instant: the one recorded first stands.
    await h.replica().observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 999 }));
    expect((await service.lastCheck(EVENT.id))?.report.ticketsSold).toBe(350);
    expect(h.slack.alerts()).toHaveLength(0);
  });

  it('keeps sold at the previous check and when sales last moved, for movement and stalls', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([{ kind: 'sold-since', count: 50 }]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    h.clock.t += HOUR;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    h.clock.t += HOUR;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 360 }));
    expect(await h.store.lastCheck(EVENT.id)).toMatchObject<Partial<EventCheck>>({
      previousSold: 300,
      lastSaleAt: T0 + 2 * HOUR,
      checks: 3,
    });
    expect(h.slack.alerts()).toHaveLength(1);
    expect(h.slack.alerts()[0]?.message).toEqual({
      kind: 'alert',
      condition: '+50 sold since the last check',
      value: 60,
    });
  });

  it('returns no-spare-slot when people have the slots, and lets another replica take the check', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    const busy = new FakeReports();
    busy.mode = 'none';
    const a = h.replica({}, { reports: busy });
    expect(await a.turn()).toEqual({ kind: 'no-spare-slot', eventId: EVENT.id });
    const [scheduled] = await h.store.schedule();
    expect(scheduled?.watchedSince).toBeDefined();
    expect(await h.opened.claims.get(`watch-due:${EVENT.id}:never:${scheduled?.watchedSince}`)).toBeUndefined();
    expect(await h.store.lastCheck(EVENT.id)).toBeUndefined();
    expect(await a.turn()).toEqual({ kind: 'no-spare-slot', eventId: EVENT.id });
    expect(await h.replica().turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.reports.spareCalls).toEqual([EVENT.id]);
  });

  it('a report call that fails is retried by any replica, an interval later (a failed check waits like a good one)', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    const failing = new FakeReports();
    failing.mode = 'throw';
    const turn = await h.replica({}, { reports: failing }).turn();
    expect(turn).toMatchObject({ kind: 'failed', eventId: EVENT.id });
    const other = h.replica();
    expect(await other.turn()).toEqual({ kind: 'idle', nextAt: T0 + INTERVAL });
    h.clock.t += INTERVAL;
    expect(await other.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
  });

  it('checks the event starting sooner first, then the other', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)], { event: OTHER }));
    await service.watch(request([soldAtLeast(400)]));
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    h.clock.t += 20_000;
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: OTHER.id });
    expect(await service.turn()).toEqual({ kind: 'idle', nextAt: T0 + INTERVAL });
  });

  it('skips a stored watch that no longer parses', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    await h.opened.keyValue.update<unknown>('watch:index', (keys) => [...(keys as string[]), 'watch:C0X:evt_bad']);
    await h.opened.keyValue.update<unknown>('watch:C0X:evt_bad', () => ({ channel: 42 }));
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect((await service.list({})).map(({ watch }) => watch.eventId)).toEqual([EVENT.id]);
  });
});

describe('WatchService: an event whose report keeps failing', () => {
  it('does not hold up the other watched events: a failed check waits its interval like a good one', async () => {
    const h = await harness();
    const service = h.replica();
    const failing: WatchReports = {
      spare: async (eventId) => {
        h.reports.spareCalls.push(eventId);
        if (eventId === EVENT.id) throw new Error('report call failed: 404');
        return simulatorReport(eventId, {});
      },
    };
    const replica = h.replica({}, { reports: failing });
    await service.watch(request([soldAtLeast(1)]));
    await service.watch(request([soldAtLeast(1)], { event: OTHER }));
    const clock = h.clock as { t: number };
    // Thirty minutes of turns every 2 s, as the scheduler retries.
    for (let t = 0; t < 30 * MINUTE; t += 2_000) {
      clock.t = T0 + t;
      await replica.turn();
    }
    const calls = (id: string) => h.reports.spareCalls.filter((each) => each === id).length;
    // Each event about every interval (10 min): the failing one no more often, the other one too.
    expect(calls(OTHER.id)).toBeGreaterThanOrEqual(3);
    expect(calls(EVENT.id)).toBeLessThanOrEqual(4);
  });
});

describe('WatchService: old claims', () => {
  it('prunes the claims its checks leave once they are older than the retention, an hour apart at most', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(1)]));
    expect((await service.turn()).kind).toBe('checked');
    const dueKey = h.claimedKeys.find((key) => key.startsWith('watch-due:')) as string;
    expect(await h.opened.claims.get(dueKey)).toMatchObject({ state: 'done' });
    // Fifteen days on, the next turn prunes it (the event itself is long over by then).
    (h.clock as { t: number }).t = T0 + 15 * DAY;
    await service.turn();
    expect(await h.opened.claims.get(dueKey)).toBeUndefined();
  });
});

describe('WatchService: a watch starts from fresh figures', () => {
  it('forgets an event’s last check with its last watch: a watch set again days later does not alert on old sales', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([{ kind: 'sold-since', count: 50 }]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    await service.unwatch('C0OPS', EVENT.id, 'U0ALICE');
    expect(await service.lastCheck(EVENT.id)).toBeUndefined();
    // Days later, 100 more sold before the new watch existed.
    h.clock.t += 3 * DAY;
    await service.watch(request([{ kind: 'sold-since', count: 50 }]));
    h.reports.set(EVENT.id, { ticketsSold: 400 });
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.slack.alerts()).toHaveLength(0);
    // Movement after it was set alerts.
    h.clock.t += INTERVAL;
    h.reports.set(EVENT.id, { ticketsSold: 460 });
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.slack.alerts().map((a) => a.message)).toEqual([
      { kind: 'alert', condition: '+50 sold since the last check', value: 60 },
    ]);
  });

  it('forgets the last check when a paused watch ends with its event', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    h.slack.refusing.set('C0OPS', 'is_archived');
    h.clock.t += MINUTE;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 310 }));
    expect((await h.store.get('C0OPS', EVENT.id))?.paused).toBeDefined();
    h.clock.t = EVENT.endsAtMs + DAY;
    await service.turn();
    expect(await h.store.get('C0OPS', EVENT.id)).toBeUndefined();
    expect(await service.lastCheck(EVENT.id)).toBeUndefined();
  });

  it('a second conversation’s new watch compares movement only with checks made since it was set', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([{ kind: 'stall', hours: 6 }]));
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    // Ten hours without a sale: the first channel's stall fires.
    h.clock.t += 10 * HOUR;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    // A watch set now in another channel has seen no stall, and no movement yet.
    h.clock.t += MINUTE;
    await service.watch(
      request(
        [
          { kind: 'sold-since', count: 50 },
          { kind: 'stall', hours: 6 },
        ],
        { channel: 'C0MKT' },
      ),
    );
    h.clock.t += MINUTE;
    await service.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 380 }));
    expect(h.slack.alerts('C0OPS').map((a) => a.message)).toEqual([
      { kind: 'alert', condition: 'no sale for 6h', value: 10 },
    ]);
    // +80 since the check before, but that check was made before C0MKT's watch existed.
    expect(h.slack.alerts('C0MKT')).toHaveLength(0);
  });
});

describe('WatchService: events that vanish', () => {
  it('ends the watches of an event a complete crawl made after them no longer lists, with a last note', async () => {
    const h = await harness();
    let listed = true;
    const service = h.replica(
      {},
      {
        eventDates: () =>
          listed
            ? {
                listed: true,
                startsAtMs: EVENT.startsAtMs,
                endsAtMs: EVENT.endsAtMs,
                endsOn: undefined,
                asOf: h.clock.t,
              }
            : { listed: false, asOf: h.clock.t },
      },
    );
    await service.watch(request([soldAtLeast(400)]));
    await service.watch(request([soldAtLeast(400)], { channel: 'C0MKT' }));
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    listed = false;
    h.clock.t += MINUTE;
    const spareBefore = h.reports.spareCalls.length;
    expect((await service.turn()).kind).toBe('idle');
    expect(h.reports.spareCalls.length).toBe(spareBefore);
    expect(
      h.slack
        .summaries()
        .map((r) => r.channel)
        .sort(),
    ).toEqual(['C0MKT', 'C0OPS']);
    expect(h.slack.updates.at(-1)?.message).toMatchObject({ kind: 'card', state: 'unlisted' });
    expect(await service.list({})).toHaveLength(0);
  });

  it('leaves a watch set after the catalog said cancelled alone (a catalog behind, or the event reinstated)', async () => {
    const h = await harness();
    // This replica's catalog read the event as cancelled an hour before the watch was set.
    const readAt = h.clock.t - HOUR;
    const service = h.replica(
      {},
      {
        eventDates: () => ({
          listed: true,
          cancelled: true,
          startsAtMs: EVENT.startsAtMs,
          endsAtMs: EVENT.endsAtMs,
          endsOn: undefined,
          asOf: readAt,
        }),
      },
    );
    await service.watch(request([soldAtLeast(400)]));
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.slack.summaries()).toHaveLength(0);
    expect(await service.list({})).toHaveLength(1);
  });

  it('ends the watches of an event whose report answers 404 twice, and spends no more report calls on it', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    h.reports.mode = 'gone';
    expect((await service.turn()).kind).toBe('failed');
    expect(h.slack.summaries()).toHaveLength(0);
    h.clock.t += INTERVAL;
    expect((await service.turn()).kind).toBe('failed');
    expect(h.slack.summaries()).toHaveLength(1);
    expect(await service.list({})).toHaveLength(0);
    const calls = h.reports.spareCalls.length;
    h.clock.t += INTERVAL;
    expect(await service.turn()).toEqual({ kind: 'idle', nextAt: undefined });
    expect(h.reports.spareCalls.length).toBe(calls);
  });

  it('a failure that is not a 404 between two 404s starts the count again', async () => {
    const h = await harness();
    const service = h.replica();
    await service.watch(request([soldAtLeast(400)]));
    h.reports.mode = 'gone';
    await service.turn();
    h.reports.mode = 'throw';
    h.clock.t += INTERVAL;
    await service.turn();
    h.reports.mode = 'gone';
    h.clock.t += INTERVAL;
    await service.turn();
    expect(await service.list({})).toHaveLength(1);
  });
});

describe('WatchService: one person cannot stretch everyone’s checks', () => {
  it('refuses a person’s 21st active watch and changes nothing; another person’s still counts apart', async () => {
    const h = await harness();
    const service = h.replica();
    for (let i = 0; i < 20; i += 1)
      expect((await service.watch(request([soldAtLeast(400)], { event: { ...EVENT, id: `evt_${i}` } }))).refused).toBe(
        undefined,
      );
    const refused = await service.watch(request([soldAtLeast(400)], { event: { ...EVENT, id: 'evt_21' } }));
    expect(refused.refused).toEqual({ kind: 'too-many-for-person', max: 20, paused: 0 });
    expect(await h.store.get('C0OPS', 'evt_21')).toBeUndefined();
    // Adding a condition to a watch that exists is not a new watch.
    expect((await service.watch(request([soldAtLeast(500)], { event: { ...EVENT, id: 'evt_3' } }))).refused).toBe(
      undefined,
    );
    // Another person may still set one up.
    const bob = await service.watch(
      request([soldAtLeast(400)], { userId: 'U0BOB', event: { ...EVENT, id: 'evt_21' } }),
    );
    expect(bob.refused).toBeUndefined();
  });

  it('takes the limit it is given', async () => {
    const h = await harness();
    const service = new WatchService<Msg>({ ...h.options(), maxWatchesPerPerson: 1 });
    await service.watch(request([soldAtLeast(400)]));
    expect((await service.watch(request([soldAtLeast(400)], { event: OTHER }))).refused).toEqual({
      kind: 'too-many-for-person',
      max: 1,
      paused: 0,
    });
  });

  it('counts paused watches too: a person cannot store watches without end by having them paused', async () => {
    const h = await harness();
    const service = new WatchService<Msg>({ ...h.options(), maxWatchesPerPerson: 3 });
    for (const id of ['evt_a', 'evt_b', 'evt_c'])
      expect((await service.watch(request([soldAtLeast(400)], { event: { ...EVENT, id } }))).refused).toBeUndefined();
    // Two are paused (their channel refused a post, or became shared): they are still stored.
    for (const id of ['evt_a', 'evt_b'])
      await h.store.update(
        'C0OPS',
        id,
        (current) => current && { ...current, paused: { reason: 'not_in_channel', at: 1 } },
      );
    const refused = await service.watch(request([soldAtLeast(400)], { event: { ...EVENT, id: 'evt_d' } }));
    expect(refused.refused).toEqual({ kind: 'too-many-for-person', max: 3, paused: 2 });
    expect(await h.store.get('C0OPS', 'evt_d')).toBeUndefined();
    // Ending a paused one makes room.
    await service.unwatch('C0OPS', 'evt_a', 'U0OPS');
    expect(
      (await service.watch(request([soldAtLeast(400)], { event: { ...EVENT, id: 'evt_d' } }))).refused,
    ).toBeUndefined();
  });
});

describe('WatchService: words that match what happened', () => {
  it('a card post that fails for a while after the watch was saved: the watch stands, the card follows at the next check', async () => {
    const h = await harness();
    const service = h.replica({ failPostCard: 1 });
    const result = await service.watch(request([soldAtLeast(400)]));
    expect(result.refused).toBeUndefined();
    expect(result.cardPending).toBe(true);
    expect(await h.store.get('C0OPS', EVENT.id)).toBeDefined();
    expect(h.slack.cards).toHaveLength(0);
    h.clock.t += LEASE;
    expect(await service.turn()).toEqual({ kind: 'checked', eventId: EVENT.id });
    expect(h.slack.cards).toHaveLength(1);
  });
});

describe('WatchService: a scheduler turn reads little', () => {
  it('reads one small schedule record when nothing is due: no watch records, no report bodies', async () => {
    const h = await harness();
    const reads: string[] = [];
    const counting = {
      ...h.opened.keyValue,
      get: <T>(key: string) => {
        reads.push(key);
        return h.opened.keyValue.get<T>(key);
      },
    };
    const store = new WatchStore(counting as typeof h.opened.keyValue, silentLogger);
    const service = new WatchService<Msg>({ ...h.options(), store });
    for (let i = 0; i < 5; i += 1)
      await service.watch(request([soldAtLeast(400)], { event: { ...EVENT, id: `evt_${i}` } }));
    for (let i = 0; i < 5; i += 1) expect((await service.turn()).kind).toBe('checked');
    reads.length = 0;
    expect((await service.turn()).kind).toBe('idle');
    expect(reads.filter((key) => key.startsWith('watch'))).toEqual(['watch:schedule']);
  });
});

describe('WatchService: what one check writes, when an alert fails or a newer check overtakes it', () => {
  const checkIns: WatchCondition = { kind: 'figure', field: 'checkIns', op: '>=', value: 100 };
  it.each([
    ['before', [checkIns, soldAtLeast(400)]],
    ['after', [soldAtLeast(400), checkIns]],
  ])(
    "keeps a re-arm judged %s another condition's alert that fails, so it alerts when crossed again",
    async (_, conditions) => {
      const h = await harness();
      const service = h.replica();
      await service.watch(request(conditions));
      await service.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 300 }));
      // Check-ins clear (re-armed) in the check where the sales alert fails to post.
      h.clock.t += 2 * MINUTE;
      h.slack.failingReplies = 1;
      await service.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 10, ticketsSold: 450 }));
      // The failed sales alert is tried again at the next check; the check-ins alert comes as well.
      h.clock.t += 2 * MINUTE;
      await service.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 160, ticketsSold: 450 }));
      const alerted = h.slack
        .alerts()
        .filter((a) => a.message.kind === 'alert')
        .map((a) => (a.message as { condition: string }).condition);
      expect(alerted.filter((c) => c === 'checkIns >= 100')).toHaveLength(2);
      expect(alerted.filter((c) => c === 'ticketsSold >= 400')).toHaveLength(1);
    },
  );

  const alertsOf = (h: Harness, condition: string) =>
    h.slack.alerts().filter((a) => (a.message as { condition?: string }).condition === condition);

  /**
   * A watch with `conditions` and four replicas: A, whose alert is held at the gate until `open`,
   * and B, C and D checking one, two and three minutes in.
   */
  async function heldAlertAndThreeLater(h: Harness, conditions: WatchCondition[]) {
    const { gate, open, replying, aReplying } = heldReply();
    const a = h.replica({ replyGate: gate, replying });
    const [b, c, d] = [1, 2, 3].map((minutes) => h.replica({}, { clock: manualClock(T0 + minutes * MINUTE) })) as [
      WatchService<Msg>,
      WatchService<Msg>,
      WatchService<Msg>,
    ];
    await b.watch(request(conditions));
    return { a, b, c, d, open, aReplying };
  }

  it('leaves a re-arm made since alone when checks wait for an alert whose crossing they saw recorded', async () => {
    const h = await harness();
    const { a, b, c, d, open, aReplying } = await heldAlertAndThreeLater(h, [checkIns, soldAtLeast(400)]);
    // A's check: both met; A is held posting the check-ins alert (sales armed, no crossing yet).
    const first = a.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 450 }));
    await aReplying;
    // B and C check meanwhile (B sees sales met, C sees them clear): each waits for the check before.
    const later = [
      b.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 450 })),
      c.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 300 })),
    ];
    open();
    await Promise.all([first, ...later]);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: true, crossings: 1 });
    // Sales cross again: a second alert.
    await d.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 450 }));
    expect(alertsOf(h, 'ticketsSold >= 400')).toHaveLength(2);
  });

  it('keeps a condition armed when a check made after its slow alert saw the figure clear', async () => {
    const h = await harness();
    const { a, b, c, d, open, aReplying } = await heldAlertAndThreeLater(h, [soldAtLeast(400)]);
    const first = a.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 450 }));
    await aReplying;
    // While A's alert is out, B sees the figure clearly cleared.
    const clearing = b.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 300 }));
    open();
    await Promise.all([first, clearing]);
    expect(await stateOf(h, 'ticketsSold >= 400')).toMatchObject({ armed: true, crossings: 1 });
    // Between cleared and met (nothing re-arms it there), then over again: a second alert.
    await c.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 395 }));
    await d.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 450 }));
    expect(alertsOf(h, 'ticketsSold >= 400')).toHaveLength(2);
  });

  it('keeps the re-arm of a check held at another alert when the next one sees the figure met again', async () => {
    const h = await harness();
    const setUp = h.replica();
    await setUp.watch(request([checkIns, soldAtLeast(400)]));
    h.clock.t += MINUTE;
    await setUp.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 0, ticketsSold: 450 }));
    expect(alertsOf(h, 'ticketsSold >= 400')).toHaveLength(1);
    const { gate, open, replying, aReplying } = heldReply();
    const a = h.replica({ replyGate: gate, replying }, { clock: manualClock(T0 + 2 * MINUTE) });
    const b = h.replica({}, { clock: manualClock(T0 + 3 * MINUTE) });
    const c = h.replica({}, { clock: manualClock(T0 + 4 * MINUTE) });
    // A's check: check-ins cross (held at its alert) and sales clear, judged after it.
    const first = a.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 300 }));
    await aReplying;
    // B's check (sales at 450 again) waits for A's clearing: the figure went down and up again.
    const again = b.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 450 }));
    open();
    await Promise.all([first, again]);
    await c.observe(EVENT.id, h.reports.set(EVENT.id, { checkIns: 150, ticketsSold: 450 }));
    expect(alertsOf(h, 'ticketsSold >= 400')).toHaveLength(2);
  });

  it('leaves the card of a watch paused while its check was carried as it is', async () => {
    const h = await harness();
    const { gate, open, replying, aReplying } = heldReply();
    let sharing: 'internal' | 'external' = 'internal';
    const reader = async () => ({ room: { kind: sharing }, person: { kind: 'member' as const } });
    const a = new WatchService<Msg>({
      ...h.options(),
      chat: chatFor(h.slack, { replyGate: gate, replying }),
      reader,
    });
    await a.watch(request([soldAtLeast(400), checkIns]));
    const first = a.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 450, checkIns: 5 }));
    await aReplying;
    // The channel turns out shared (`channel_shared`): another replica pauses the watch.
    sharing = 'external';
    const b = new WatchService<Msg>({ ...h.options(), clock: manualClock(T0 + MINUTE), reader });
    expect(await b.reconsider('C0OPS')).toBe(1);
    expect((await h.store.get('C0OPS', EVENT.id))?.paused).toBeDefined();
    const edits = h.slack.updates.length;
    open();
    await first;
    expect(h.slack.updates.slice(edits).map((u) => (u.message as { state?: string }).state)).toEqual([]);
  });

  /** A replica's store whose reads of the event's watches wait at a gate the test opens. */
  class GatedStore extends WatchStore {
    gate: { reached: () => void; open: Promise<void> } | undefined;
    override async ofEvent(eventId: string) {
      const gate = this.gate;
      this.gate = undefined;
      if (gate) {
        gate.reached();
        await gate.open;
      }
      return super.ofEvent(eventId);
    }
  }
  /** Gates the store's next read of an event's watches: `reached` resolves when a replica waits there, `open` lets it go. */
  function gated(store: GatedStore) {
    let open = () => {};
    let reached = () => {};
    const waiting = new Promise<void>((resolve) => {
      reached = resolve;
    });
    store.gate = { reached: () => reached(), open: new Promise<void>((resolve) => (open = resolve)) };
    return { waiting, open: () => open() };
  }
  const replicaOn = (h: Harness, store: WatchStore, t: number, behaviour: ChatBehaviour = {}) =>
    new WatchService<Msg>({ ...h.options(), store, chat: chatFor(h.slack, behaviour), clock: manualClock(t) });
  const SALES = 'ticketsSold >= 400';
  /** A check `ms` into the test by a replica of its own that sees `sold`. */
  const checkAt = (h: Harness, ms: number, sold: number) =>
    h.replica({}, { clock: manualClock(T0 + ms) }).observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: sold }));

  /** A check as `checkAt` makes it, and when it has asked for its place among the event's checks. */
  function queuedCheckAt(h: Harness, ms: number, sold: number) {
    let asked = () => {};
    const inQueue = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const keyValue: KeyValueStore = {
      ...h.opened.keyValue,
      section: (key, work, options) => {
        asked();
        return h.opened.keyValue.section(key, work, options);
      },
    };
    const store = new WatchStore(keyValue, silentLogger);
    const done = replicaOn(h, store, T0 + ms).observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: sold }));
    return { done, inQueue };
  }

  /** X (a minute in) sees `sold` and is slow to read its watches; `then` starts meanwhile; both run out. */
  async function slowReadOf(h: Harness, sold: number, then: () => Promise<void>) {
    await h.replica().watch(request([soldAtLeast(400)]));
    const store = new GatedStore(h.opened.keyValue, silentLogger);
    const slow = gated(store);
    const x = replicaOn(h, store, T0 + MINUTE).observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: sold }));
    await slow.waiting;
    const meanwhile = then();
    slow.open();
    await Promise.all([x, meanwhile]);
  }

  it('alerts a crossing once when a newer check waits for a slow one that saw the figure clear', async () => {
    const h = await harness();
    // X saw 300; meanwhile Y (two minutes in) sees 450 and alerts.
    await slowReadOf(h, 300, () => checkAt(h, 2 * MINUTE, 450));
    // Z (three minutes in) still sees 450: no new crossing, no second alert.
    await checkAt(h, 3 * MINUTE, 450);
    expect(await stateOf(h, SALES)).toMatchObject({ armed: false, crossings: 1 });
    expect(alertsOf(h, SALES)).toHaveLength(1);
  });

  it('alerts one crossing when newer checks that crossed and cleared wait for a slow one that crossed', async () => {
    const h = await harness();
    await slowReadOf(h, 450, async () => {
      await checkAt(h, 2 * MINUTE, 450);
      await checkAt(h, 3 * MINUTE, 300);
    });
    // The checks in order saw 450, 450, 300: one crossing.
    expect(alertsOf(h, SALES)).toHaveLength(1);
  });

  it('alerts the next crossing when checks that cleared and crossed again wait for a held alert', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    const held = heldReply();
    const x = h
      .replica({ replyGate: held.gate, replying: held.replying }, { clock: manualClock(T0 + 10_000) })
      .observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 450 }));
    await held.aReplying;
    // Y (20 s in) sees 300, clearly cleared; Z (30 s in) 450 again, a second crossing. Z asks
    // once Y waits: Z first would leave Y, read before it, nothing to do.
    const y = queuedCheckAt(h, 20_000, 300);
    await y.inQueue;
    const z = checkAt(h, 30_000, 450);
    held.open();
    await Promise.all([x, y.done, z]);
    expect(await stateOf(h, SALES)).toMatchObject({ armed: false, crossings: 2 });
    await checkAt(h, 40_000, 450);
    expect(alertsOf(h, SALES)).toHaveLength(2);
  });

  it('keeps the clearing a check saw once the crossing of the held alert before it is written', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    const held = heldReply();
    const x = h
      .replica({ replyGate: held.gate, replying: held.replying }, { clock: manualClock(T0 + 10_000) })
      .observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 450 }));
    await held.aReplying;
    const clearing = checkAt(h, 20_000, 300);
    held.open();
    await Promise.all([x, clearing]);
    expect(await stateOf(h, SALES)).toMatchObject({ armed: true, crossings: 1 });
    await checkAt(h, 30_000, 450);
    expect(alertsOf(h, SALES)).toHaveLength(2);
  });

  it('keeps the figure a check saw while another replica held the alert', async () => {
    const h = await harness();
    await h.replica().watch(request([soldAtLeast(400)]));
    const held = heldReply();
    const first = h
      .replica({ replyGate: held.gate, replying: held.replying }, { clock: manualClock(T0 + MINUTE) })
      .observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 450 }));
    await held.aReplying;
    const second = h
      .replica({}, { clock: manualClock(T0 + 2 * MINUTE) })
      .observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 470 }));
    held.open();
    await Promise.all([first, second]);
    expect(await stateOf(h, SALES)).toMatchObject({ lastValue: 470, crossings: 1 });
  });

  it('shows the newest check on the card once the check held at its alert is carried', async () => {
    const h = await harness();
    const { gate, open, replying, aReplying } = heldReply();
    const a = h.replica({ replyGate: gate, replying });
    const b = h.replica({}, { clock: manualClock(T0 + MINUTE) });
    await a.watch(request([soldAtLeast(400)]));
    // A's check crosses and is held at its alert; B's newer check waits for it.
    const first = a.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 410 }));
    await aReplying;
    const newer = b.observe(EVENT.id, h.reports.set(EVENT.id, { ticketsSold: 480 }));
    open();
    await Promise.all([first, newer]);
    const cards = h.slack.updates
      .filter((u) => u.message.kind === 'card')
      .map((u) => u.message as { checks?: number; conditions: ConditionState[] });
    // Its figures and its conditions come from the same check, the newest.
    expect(cards.at(-1)?.checks).toBe(2);
    expect(cards.at(-1)?.conditions[0]).toMatchObject({ armed: false, crossings: 1, lastValue: 480 });
    expect((await h.store.get('C0OPS', EVENT.id))?.conditions[0]?.lastValue).toBe(480);
  });
});
