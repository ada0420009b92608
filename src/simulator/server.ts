import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../read-body.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { CursorCodec } from './cursor.js';
import { type FaultKind, FaultPlan } from './faults.js';
import type { WindowState } from './fixed-window.js';
import { createOrg, type Org, type RetryAfterFormat, rateLimitHeaders, retryAfterValue } from './limits.js';
import { type FigureChanges, type Motion, MovingFigures, type PastSpacing } from './moving-figures.js';
import { normaliseId } from './normalise-id.js';
import { seededRandom } from './random.js';
import { renderReport } from './report.js';
import { createHandlers, errorBody, resolveRoute } from './routes.js';
import type { SalesProfile } from './sales-profile.js';
import { type SimCatalog, type SimEvent, seedCatalog } from './seed.js';

export type { FaultKind } from './faults.js';
export type { RetryAfterFormat } from './limits.js';
export type { FigureChanges, Motion } from './moving-figures.js';
export type { SalesKind, SalesProfile } from './sales-profile.js';

/** Knobs that tests and the benchmark turn while the simulator runs. */
export interface SimulatorKnobs {
  /** Delay before each answer, in ms. @default 0 */
  latencyMs: number;
  /** Share of admitted requests that fail (0..1). @default 0 */
  faultRate: number;
  /** Which failures `faultRate` draws from. @default all three */
  faultKinds: FaultKind[];
  /** How `Retry-After` is written on a 429. @default 'seconds' */
  retryAfterFormat: RetryAfterFormat;
  /**
   * How `X-RateLimit-Reset` is written: milliseconds until the reset (the spec), or by mistake
   * the reset as seconds since the epoch (a client reading ms would wait for weeks). @default 'ms'
   */
  resetFormat: 'ms' | 'epoch-seconds';
  /**
   * While set, an admitted report call is answered only once it settles (after `latencyMs`): a
   * test holds calls in flight for as long as it needs, whatever the machine's load. @default none
   */
  holdReports?: Promise<unknown> | undefined;
}

export interface SimulatorOptions extends Partial<SimulatorKnobs> {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (any free port) */
  port?: number;
  /** The organization's budget. @default { limit: 180, windowMs: 60000 } */
  orgLimit?: { limit: number; windowMs: number };
  /** The order events are listed in: by start, or shuffled (seeded; the spec promises no order). @default 'start' */
  listOrder?: 'start' | 'shuffled';
  /** Whether the organization's budget counts a fixed or a rolling window. @default 'fixed' */
  windowKind?: 'fixed' | 'sliding';
  /** The report endpoint's own limit. @default { limit: 3, windowMs: 60000 } */
  reportLimit?: { limit: number; windowMs: number };
  /** API keys of the one organization; two random ones when not given. */
  apiKeys?: string[];
  /** Keys that belong to another organization, with its own budget (for isolation tests). */
  otherOrgKeys?: string[];
  seed?: number;
  /** Events are placed around this instant. @default now */
  anchorMs?: number;
  /** @default 160 */
  eventCount?: number;
  clock?: Clock;
  /**
   * Whether reports move with `clock` from the start: sales, check-ins and promo redemptions
   * accumulate (a few hot events sell out within minutes), or every report of an event reads the
   * same until its figures are set. @default 'still'
   */
  motion?: Motion;
}

export interface SimulatorStats {
  requests: number;
  byStatus: Record<string, number>;
  rateLimited: number;
  /** Report requests past both limits: being answered or answered (a log entry comes with the answer). */
  admittedReports: number;
  faults: Record<FaultKind, number>;
  /** Most requests admitted within one server window, per limit. */
  mostInAWindow: { organization: number; report: number };
  /** Most requests admitted within any window-long span, wherever it starts. */
  mostInAnySpan: { organization: number; report: number };
  /** Admitted requests per server window of the organization's budget, oldest first. */
  organizationWindows: number[];
  /** Every request in arrival order (time, method, path, status). */
  log: { at: number; method: string; path: string; status: number; key: number }[];
}

export interface Simulator {
  url: string;
  apiKeys: string[];
  catalog: SimCatalog;
  knobs: SimulatorKnobs;
  /** Answers the next `count` requests with 429 and this `Retry-After` value. */
  forceRateLimit(count: number, retryAfter: string): void;
  /** Answers the next `count` admitted requests with this status and JSON body (e.g. a 409 with a hostile message). */
  forceAnswer(count: number, status: number, body: unknown): void;
  /** The next `count` admitted requests fail this way, whatever `faultRate` says. */
  forceFault(count: number, kind: FaultKind): void;
  /**
   * Sets an event's figures (id with or without `evt_`) as of now; its next report shows them and
   * motion goes on from them. Throws `RangeError` for an unknown event or promo code, or a figure
   * out of bounds (sales above capacity, check-ins above sales, redemptions above quantity).
   */
  setFigures(eventId: string, figures: FigureChanges): void;
  /** Starts or stops one event's figures, or every event's (`'all'`, also the default for later reads). */
  setMotion(eventId: string | 'all', motion: Motion): void;
  /** How an event sells while moving (to find a hot or an idle one). */
  salesProfile(eventId: string): Readonly<SalesProfile>;
  /**
   * The reports the event would have given before the simulator started, oldest first, from the
   * day its sale opened (some four weeks before) to the start, or to its end when it was over by
   * then: one a day, and every 3 hours in the last 2 days (`spacing` changes that); the last is the
   * report it starts with. What the local sandbox seeds its sales history with, so a forecast shows
   * at once.
   */
  pastReports(eventId: string, spacing?: Partial<PastSpacing>): { at: number; report: Record<string, unknown> }[];
  stats(): SimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

const MAX_LOG = 50_000;
const HOUR_MS = 3_600_000;

/** A seeded Fisher-Yates shuffle (a copy). */
function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

function newKey(): string {
  return `sk_sim_${randomBytes(18).toString('base64url')}`;
}

/** Starts the Event Ticketing Service stand-in on loopback. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clock = options.clock ?? systemClock;
  const origin = clock.now();
  const apiKeys = options.apiKeys ?? [newKey(), newKey()];
  const catalog = seedCatalog({
    seed: options.seed ?? 42,
    anchorMs: options.anchorMs ?? clock.now(),
    eventCount: options.eventCount ?? 160,
  });
  const shuffled =
    options.listOrder === 'shuffled' ? shuffle(catalog.events, seededRandom((options.seed ?? 42) + 7)) : undefined;
  const figures = new MovingFigures(catalog, {
    seed: options.seed ?? 42,
    originMs: origin,
    motion: options.motion ?? 'still',
  });
  const answer = createHandlers(
    catalog,
    new CursorCodec(randomBytes(32)),
    {
      report: (event) => {
        const now = clock.now();
        return renderReport(event, figures.snapshot(event.id, now), figures.promosOf(event.id), now);
      },
      settle: (event) => figures.settle(event.id, clock.now()),
    },
    () => shuffled ?? catalog.events,
  );
  const faults = new FaultPlan(seededRandom((options.seed ?? 42) + 1));
  const knobs: SimulatorKnobs = {
    latencyMs: options.latencyMs ?? 0,
    faultRate: options.faultRate ?? 0,
    faultKinds: options.faultKinds ?? ['5xx', 'drop', 'truncate'],
    retryAfterFormat: options.retryAfterFormat ?? 'seconds',
    resetFormat: options.resetFormat ?? 'ms',
  };
  const limits = {
    orgLimit: options.orgLimit ?? { limit: 180, windowMs: 60_000 },
    reportLimit: options.reportLimit ?? { limit: 3, windowMs: 60_000 },
    windowKind: options.windowKind ?? 'fixed',
    origin,
  };
  const org = createOrg('org_main', limits);
  const orgsByKey = new Map<string, Org>();
  for (const key of apiKeys) orgsByKey.set(key, org);
  const other = createOrg('org_other', limits);
  for (const key of options.otherOrgKeys ?? []) orgsByKey.set(key, other);

  let forced429: { count: number; retryAfter: string } | undefined;
  let forcedAnswer: { count: number; status: number; body: unknown } | undefined;
  let stats = emptyStats();

  function emptyStats() {
    return {
      requests: 0,
      byStatus: {} as Record<string, number>,
      rateLimited: 0,
      admittedReports: 0,
      faults: { '5xx': 0, drop: 0, 'drop-after': 0, truncate: 0 } as Record<FaultKind, number>,
      log: [] as SimulatorStats['log'],
    };
  }

  function record(req: IncomingMessage, status: number): void {
    stats.requests += 1;
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    if (status === 429) stats.rateLimited += 1;
    if (stats.log.length < MAX_LOG) {
      const key = req.headers['service-api-key'];
      stats.log.push({
        at: clock.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        status,
        key: typeof key === 'string' ? apiKeys.indexOf(key) : -1,
      });
    }
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: unknown,
    limit: WindowState,
    extraHeaders: Record<string, string> = {},
  ): void {
    record(req, status);
    res.writeHead(status, {
      'content-type': 'application/json',
      ...rateLimitHeaders(limit, knobs, clock),
      ...extraHeaders,
    });
    res.end(JSON.stringify(body));
  }

  const tooMany = (state: WindowState, message: string) => ({
    status: 429,
    body: errorBody(429, 'rate_limit_exceeded', message),
    state,
    headers: { 'retry-after': retryAfterValue(state.resetMs, knobs, clock) },
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const now = clock.now();
    const url = new URL(req.url ?? '/', 'http://simulator');
    const key = req.headers['service-api-key'];
    const who = typeof key === 'string' ? orgsByKey.get(key) : undefined;
    if (!who) {
      send(req, res, 401, errorBody(401, 'unauthorized', 'Missing or unknown Service-Api-Key'), org.window.peek(now));
      return;
    }
    if (forced429 && forced429.count > 0) {
      forced429.count -= 1;
      send(
        req,
        res,
        429,
        errorBody(429, 'rate_limit_exceeded', 'Too many requests'),
        {
          ...who.window.peek(now),
          remaining: 0,
        },
        { 'retry-after': forced429.retryAfter },
      );
      return;
    }
    const taken = who.window.take(now);
    if (!taken.allowed) {
      const refused = tooMany(taken, `Rate limit of ${taken.limit} requests exceeded`);
      send(req, res, refused.status, refused.body, refused.state, refused.headers);
      return;
    }
    let headers: WindowState = taken;
    const routed = resolveRoute(url.pathname);
    if (!routed) {
      send(req, res, 404, errorBody(404, 'not_found', `No route for ${url.pathname}`), headers);
      return;
    }
    if (req.method !== routed.method) {
      send(
        req,
        res,
        405,
        errorBody(405, 'method_not_allowed', `${url.pathname} accepts ${routed.method} only`),
        headers,
        {
          allow: routed.method,
        },
      );
      return;
    }
    if (routed.route.kind === 'report') {
      // The report's own limit, counted against the organization too; its headers describe it.
      const reportTaken = who.reportWindow.take(now);
      headers = reportTaken;
      if (!reportTaken.allowed) {
        const refused = tooMany(reportTaken, `Report limit of ${reportTaken.limit} requests exceeded`);
        send(req, res, refused.status, refused.body, refused.state, refused.headers);
        return;
      }
      stats.admittedReports += 1;
    }

    const body = routed.method === 'POST' ? await readBody(req) : '';
    if (knobs.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, knobs.latencyMs));
    if (routed.route.kind === 'report' && knobs.holdReports) await knobs.holdReports.catch(() => undefined);
    if (forcedAnswer && forcedAnswer.count > 0) {
      forcedAnswer.count -= 1;
      send(req, res, forcedAnswer.status, forcedAnswer.body, headers);
      return;
    }
    const fault = faults.next(knobs);
    if (fault) stats.faults[fault] += 1;
    switch (fault) {
      case '5xx':
        send(req, res, 503, errorBody(503, 'unavailable', 'Injected fault'), headers);
        return;
      case 'drop':
        record(req, 0);
        req.socket.destroy();
        return;
      case 'drop-after':
        answer(routed.route, body, url);
        record(req, 0);
        req.socket.destroy();
        return;
      case 'truncate': {
        // A success whose body is cut off; the work (a promo update) still happens.
        const full = JSON.stringify(answer(routed.route, body, url).body);
        record(req, 200);
        res.writeHead(200, { 'content-type': 'application/json', ...rateLimitHeaders(headers, knobs, clock) });
        res.end(full.slice(0, Math.floor(full.length / 2)));
        return;
      }
      default: {
        const result = answer(routed.route, body, url);
        send(req, res, result.status, result.body, headers);
      }
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((failure: unknown) => {
      if (!res.headersSent) {
        send(req, res, 500, errorBody(500, 'internal', String(failure)), org.window.peek(clock.now()));
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;

  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    apiKeys,
    catalog,
    knobs,
    forceRateLimit: (count, retryAfter) => {
      forced429 = { count, retryAfter };
    },
    forceAnswer: (count, status, body) => {
      forcedAnswer = { count, status, body };
    },
    forceFault: (count, kind) => faults.force(count, kind),
    setFigures: (eventId, changes) => figures.setFigures(eventId, changes, clock.now()),
    setMotion: (eventId, motion) => figures.setMotion(eventId, motion, clock.now()),
    salesProfile: (eventId) => figures.profile(eventId),
    pastReports: (eventId, spacing = {}) => {
      const past = figures.past(eventId, {
        everyMs: spacing.everyMs ?? 24 * HOUR_MS,
        recentMs: spacing.recentMs ?? 48 * HOUR_MS,
        recentEveryMs: spacing.recentEveryMs ?? 3 * HOUR_MS,
      });
      const event = catalog.events.find((each) => each.id === normaliseId('evt', eventId)) as SimEvent;
      return past.map(({ at, figures: snapshot, promos }) => ({
        at,
        report: renderReport(event, snapshot, promos, at),
      }));
    },
    stats: () => {
      const windows = org.window.countsByWindow();
      const first = Math.min(...windows.keys());
      const last = Math.max(...windows.keys());
      const organizationWindows: number[] = [];
      if (windows.size > 0) for (let i = first; i <= last; i += 1) organizationWindows.push(windows.get(i) ?? 0);
      return {
        ...stats,
        byStatus: { ...stats.byStatus },
        faults: { ...stats.faults },
        log: [...stats.log],
        mostInAWindow: { organization: org.window.mostInAWindow, report: org.reportWindow.mostInAWindow },
        mostInAnySpan: { organization: org.window.mostInAnySpan(), report: org.reportWindow.mostInAnySpan() },
        organizationWindows,
      };
    },
    resetStats: () => {
      stats = emptyStats();
      org.window.resetStats();
      org.reportWindow.resetStats();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
