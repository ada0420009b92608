import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { CursorCodec } from './cursor.js';
import { FixedWindow, type WindowState } from './fixed-window.js';
import { seededRandom } from './random.js';
import { renderReport } from './report.js';
import { type SimCatalog, type SimEvent, type SimPromo, seedCatalog } from './seed.js';
import { SlidingWindow } from './sliding-window.js';

/**
 * `drop`: the connection is cut before the work is done; `drop-after`: the work is done, then the
 * connection is cut (the client cannot know); `truncate`: the work is done, the body is cut off.
 */
export type FaultKind = '5xx' | 'drop' | 'drop-after' | 'truncate';
export type RetryAfterFormat = 'seconds' | 'fractional' | 'http-date';

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
}

export interface SimulatorOptions extends Partial<SimulatorKnobs> {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (any free port) */
  port?: number;
  /** The organization's budget. @default { limit: 180, windowMs: 60000 } */
  orgLimit?: { limit: number; windowMs: number };
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
}

export interface SimulatorStats {
  requests: number;
  byStatus: Record<string, number>;
  rateLimited: number;
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
  stats(): SimulatorStats;
  resetStats(): void;
  close(): Promise<void>;
}

interface Org {
  id: string;
  window: FixedWindow | SlidingWindow;
  reportWindow: FixedWindow;
}

const MAX_LOG = 50_000;

function newKey(): string {
  return `sk_sim_${randomBytes(18).toString('base64url')}`;
}

/**
 * An id from a path, with or without its prefix (spec 2.1); another prefix does not match.
 * Written apart from the client's `parseId` on purpose: the stand-in must not share the client's bugs.
 */
function normaliseId(prefix: string, raw: string): string | undefined {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const text = raw.toLowerCase();
  if (uuid.test(text)) return `${prefix}_${text}`;
  if (text.startsWith(`${prefix}_`) && uuid.test(text.slice(prefix.length + 1))) return text;
  return undefined;
}

function publicEvent(event: SimEvent): Record<string, unknown> {
  const { startsAtMs: _sort, capacity: _capacity, ...rest } = event;
  return rest;
}

function publicPromo(promo: SimPromo): Record<string, unknown> {
  return { ...promo };
}

/** Starts the Event Ticketing Service stand-in on loopback. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const clock = options.clock ?? systemClock;
  const origin = clock.now();
  const orgLimit = options.orgLimit ?? { limit: 180, windowMs: 60_000 };
  const reportLimit = options.reportLimit ?? { limit: 3, windowMs: 60_000 };
  const apiKeys = options.apiKeys ?? [newKey(), newKey()];
  const catalog = seedCatalog({
    seed: options.seed ?? 42,
    anchorMs: options.anchorMs ?? clock.now(),
    eventCount: options.eventCount ?? 160,
  });
  const eventsById = new Map(catalog.events.map((event) => [event.id, event]));
  const promosById = new Map(catalog.promos.map((promo) => [promo.id, promo]));
  const cursors = new CursorCodec(randomBytes(32));
  const faultRandom = seededRandom((options.seed ?? 42) + 1);
  const knobs: SimulatorKnobs = {
    latencyMs: options.latencyMs ?? 0,
    faultRate: options.faultRate ?? 0,
    faultKinds: options.faultKinds ?? ['5xx', 'drop', 'truncate'],
    retryAfterFormat: options.retryAfterFormat ?? 'seconds',
    resetFormat: options.resetFormat ?? 'ms',
  };

  const makeOrg = (id: string): Org => ({
    id,
    window:
      options.windowKind === 'sliding'
        ? new SlidingWindow(orgLimit.limit, orgLimit.windowMs, origin)
        : new FixedWindow(orgLimit.limit, orgLimit.windowMs, origin),
    reportWindow: new FixedWindow(reportLimit.limit, reportLimit.windowMs, origin),
  });
  const org = makeOrg('org_main');
  const other = makeOrg('org_other');
  const orgsByKey = new Map<string, Org>();
  for (const key of apiKeys) orgsByKey.set(key, org);
  for (const key of options.otherOrgKeys ?? []) orgsByKey.set(key, other);

  let forced: { count: number; retryAfter: string } | undefined;
  let forcedAnswer: { count: number; status: number; body: unknown } | undefined;
  let forcedFault: { count: number; kind: FaultKind } | undefined;
  let stats = emptyStats();

  function emptyStats() {
    return {
      requests: 0,
      byStatus: {} as Record<string, number>,
      rateLimited: 0,
      faults: { '5xx': 0, drop: 0, 'drop-after': 0, truncate: 0 } as Record<FaultKind, number>,
      log: [] as SimulatorStats['log'],
    };
  }

  function retryAfterValue(resetMs: number): string {
    switch (knobs.retryAfterFormat) {
      case 'fractional':
        return (resetMs / 1000).toFixed(3);
      case 'http-date':
        // HTTP-dates have whole seconds: round up so the client never comes back early.
        return new Date(Math.ceil((clock.now() + resetMs) / 1000) * 1000).toUTCString();
      default:
        return String(Math.max(1, Math.ceil(resetMs / 1000)));
    }
  }

  /** The three headers every response carries (spec 8 rule 2). */
  function rateLimitHeaders(state: WindowState): Record<string, string> {
    const resetMs = Math.max(0, Math.round(state.resetMs));
    return {
      'x-ratelimit-limit': String(state.limit),
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-reset':
        knobs.resetFormat === 'epoch-seconds' ? String(Math.ceil((clock.now() + resetMs) / 1000)) : String(resetMs),
    };
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: unknown,
    limit: WindowState,
    extraHeaders: Record<string, string> = {},
  ): void {
    record(req, res, status);
    res.writeHead(status, { 'content-type': 'application/json', ...rateLimitHeaders(limit), ...extraHeaders });
    res.end(JSON.stringify(body));
  }

  function record(req: IncomingMessage, _res: ServerResponse, status: number): void {
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

  const error = (status: number, code: string, message: string) => ({ error: code, message, statusCode: status });

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > 64 * 1024) throw new Error('body too large');
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const now = clock.now();
    const url = new URL(req.url ?? '/', 'http://simulator');
    const key = req.headers['service-api-key'];
    const who = typeof key === 'string' ? orgsByKey.get(key) : undefined;
    if (!who) {
      send(req, res, 401, error(401, 'unauthorized', 'Missing or unknown Service-Api-Key'), org.window.peek(now));
      return;
    }

    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    type Route =
      | { kind: 'list' }
      | { kind: 'report'; eventId: string }
      | { kind: 'promo'; eventId: string; promoId: string };
    let route: Route | undefined;
    let method = 'GET';
    if (segments.length === 2 && segments[0] === 'v1' && segments[1] === 'events') route = { kind: 'list' };
    else if (segments.length === 4 && segments[0] === 'v1' && segments[1] === 'events' && segments[3] === 'report') {
      route = { kind: 'report', eventId: segments[2] as string };
    } else if (
      segments.length === 6 &&
      segments[0] === 'v1' &&
      segments[1] === 'events' &&
      segments[3] === 'promos' &&
      segments[5] === 'update'
    ) {
      route = { kind: 'promo', eventId: segments[2] as string, promoId: segments[4] as string };
      method = 'POST';
    }

    if (forced && forced.count > 0) {
      forced.count -= 1;
      const state = who.window.peek(now);
      send(
        req,
        res,
        429,
        error(429, 'rate_limit_exceeded', 'Too many requests'),
        { ...state, remaining: 0 },
        {
          'retry-after': forced.retryAfter,
        },
      );
      return;
    }

    const taken = who.window.take(now);
    if (!taken.allowed) {
      send(req, res, 429, error(429, 'rate_limit_exceeded', `Rate limit of ${taken.limit} requests exceeded`), taken, {
        'retry-after': retryAfterValue(taken.resetMs),
      });
      return;
    }
    let headers: WindowState = taken;

    if (!route) {
      send(req, res, 404, error(404, 'not_found', `No route for ${url.pathname}`), headers);
      return;
    }
    if (req.method !== method) {
      send(req, res, 405, error(405, 'method_not_allowed', `${url.pathname} accepts ${method} only`), headers, {
        allow: method,
      });
      return;
    }
    if (route.kind === 'report') {
      const reportTaken = who.reportWindow.take(now);
      headers = reportTaken;
      if (!reportTaken.allowed) {
        send(
          req,
          res,
          429,
          error(429, 'rate_limit_exceeded', `Report limit of ${reportTaken.limit} requests exceeded`),
          reportTaken,
          { 'retry-after': retryAfterValue(reportTaken.resetMs) },
        );
        return;
      }
    }

    const body = method === 'POST' ? await readBody(req) : '';
    if (knobs.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, knobs.latencyMs));

    if (forcedAnswer && forcedAnswer.count > 0) {
      forcedAnswer.count -= 1;
      send(req, res, forcedAnswer.status, forcedAnswer.body, headers);
      return;
    }

    let fault: FaultKind | undefined;
    if (forcedFault && forcedFault.count > 0) {
      forcedFault.count -= 1;
      fault = forcedFault.kind;
    } else if (knobs.faultRate > 0 && faultRandom() < knobs.faultRate && knobs.faultKinds.length > 0) {
      fault = knobs.faultKinds[Math.floor(faultRandom() * knobs.faultKinds.length)] as FaultKind;
    }
    if (fault) {
      const kind = fault;
      stats.faults[kind] += 1;
      if (kind === '5xx') {
        send(req, res, 503, error(503, 'unavailable', 'Injected fault'), headers);
        return;
      }
      if (kind === 'drop') {
        record(req, res, 0);
        req.socket.destroy();
        return;
      }
      if (kind === 'drop-after') {
        answer(route, body, url);
        record(req, res, 0);
        req.socket.destroy();
        return;
      }
      // 'truncate': a success whose body is cut off; the work (a promo update) still happens.
      const full = JSON.stringify(answer(route, body).body);
      record(req, res, 200);
      res.writeHead(200, { 'content-type': 'application/json', ...rateLimitHeaders(headers) });
      res.end(full.slice(0, Math.floor(full.length / 2)));
      return;
    }

    const result = answer(route, body, url);
    send(req, res, result.status, result.body, headers);
  }

  function answer(
    route: { kind: 'list' } | { kind: 'report'; eventId: string } | { kind: 'promo'; eventId: string; promoId: string },
    body: string,
    url?: URL,
  ): { status: number; body: unknown } {
    if (route.kind === 'list') return listEvents(url ?? new URL('http://simulator/v1/events'));
    const eventId = normaliseId('evt', route.eventId);
    const event = eventId ? eventsById.get(eventId) : undefined;
    if (!event) return { status: 404, body: error(404, 'not_found', `Event ${route.eventId} not found`) };
    if (route.kind === 'report') {
      return {
        status: 200,
        body: renderReport(
          event,
          catalog.promos.filter((p) => p.eventId === event.id),
        ),
      };
    }
    const promoId = normaliseId('promo', route.promoId);
    const promo = promoId ? promosById.get(promoId) : undefined;
    if (!promo || promo.eventId !== event.id) {
      return { status: 404, body: error(404, 'not_found', `Promo code ${route.promoId} not found on this event`) };
    }
    return updatePromo(promo, body);
  }

  function listEvents(url: URL): { status: number; body: unknown } {
    const limitText = url.searchParams.get('limit');
    let limit = 10;
    if (limitText !== null) {
      if (!/^\d+$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) {
        return { status: 400, body: error(400, 'invalid_request', 'limit must be an integer from 1 to 100') };
      }
      limit = Number(limitText);
    }
    let start = 0;
    const cursor = url.searchParams.get('nextCursor');
    if (cursor !== null) {
      const after = cursors.decode(cursor);
      const index = after === undefined ? -1 : catalog.events.findIndex((event) => event.id === after);
      if (index < 0)
        return { status: 400, body: error(400, 'invalid_cursor', 'nextCursor is not a cursor this service issued') };
      start = index + 1;
    }
    const page = catalog.events.slice(start, start + limit);
    const hasMore = start + limit < catalog.events.length;
    const last = page.at(-1);
    return {
      status: 200,
      body: {
        data: page.map(publicEvent),
        pagination: { nextCursor: hasMore && last ? cursors.encode(last.id) : null, hasMore },
      },
    };
  }

  function updatePromo(promo: SimPromo, text: string): { status: number; body: unknown } {
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      return { status: 400, body: error(400, 'invalid_request', 'The body is not valid JSON') };
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { status: 400, body: error(400, 'invalid_request', 'The body must be a JSON object') };
    }
    const fields = input as Record<string, unknown>;
    const { quantity, code, active, discountPercent } = fields;
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 0) {
      return { status: 400, body: error(400, 'invalid_request', 'quantity must be a non-negative integer') };
    }
    if (code !== undefined && (typeof code !== 'string' || code.trim() === '')) {
      return { status: 400, body: error(400, 'invalid_request', 'code must be a non-empty string') };
    }
    if (active !== undefined && typeof active !== 'boolean') {
      return { status: 400, body: error(400, 'invalid_request', 'active must be a boolean') };
    }
    if (
      discountPercent !== undefined &&
      (typeof discountPercent !== 'number' || discountPercent < 0 || discountPercent > 100)
    ) {
      return { status: 400, body: error(400, 'invalid_request', 'discountPercent must be a number from 0 to 100') };
    }
    // Only the fields passed change (spec 4.1 rule 2); validation came first, so nothing is half-applied.
    promo.quantity = quantity;
    if (typeof code === 'string') promo.code = code;
    if (typeof active === 'boolean') promo.active = active;
    if (typeof discountPercent === 'number') promo.discountPercent = discountPercent;
    return { status: 200, body: publicPromo(promo) };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((failure: unknown) => {
      if (!res.headersSent) {
        send(req, res, 500, error(500, 'internal', String(failure)), org.window.peek(clock.now()));
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
      forced = { count, retryAfter };
    },
    forceAnswer: (count, status, body) => {
      forcedAnswer = { count, status, body };
    },
    forceFault: (count, kind) => {
      forcedFault = { count, kind };
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
