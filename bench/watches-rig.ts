/**
 * The rig of the watches bench (`bench/watches.ts`): its scaled timings; the simulator, client,
 * report queue, watch service and scheduler built as one process builds them; and the tables and
 * verdicts its scenarios print.
 */
import { silentLogger } from '../src/logger.js';
import { inProcessQueue } from '../src/reports/queue/build-report-queue.js';
import type { InProcessReportQueue } from '../src/reports/queue/in-process-report-queue.js';
import { ReportReads } from '../src/reports/report-reads.js';
import { seededRandom } from '../src/simulator/random.js';
import { type Simulator, startSimulator } from '../src/simulator/server.js';
import { openStore } from '../src/store/open-store.js';
import { createTicketingClient } from '../src/ticketing/create-client.js';
import type { TicketingEvent } from '../src/ticketing/schemas.js';
import type { WatchChat, WatchMessages } from '../src/watches/watch-chat.js';
import { WatchScheduler } from '../src/watches/watch-scheduler.js';
import { WatchService } from '../src/watches/watch-service.js';
import { WatchStore } from '../src/watches/watch-store.js';

/** `BENCH_SHORT=1`: a quicker run (a 250 ms window, 12 windows a run) that proves the bench still runs. */
const SHORT = process.env.BENCH_SHORT === '1';
export const WINDOW_MS = Number(process.env.BENCH_WINDOW_MS ?? (SHORT ? 250 : 1_000));
/** How many real ms one ms of this run stands for. */
export const SCALE = 60_000 / WINDOW_MS;
export const REPORTS = { limit: 3, windowMs: WINDOW_MS };
export const ORG = { limit: 10_000, windowMs: WINDOW_MS };
export const MIN_INTERVAL_MS = WINDOW_MS;
export const LATENCY_MS = 5;
export const WATCHED = 30;
export const RUN_WINDOWS = SHORT ? 12 : 30;
export const PEOPLE = 5;
/** Each person may set at most `MAX_WATCHES_PER_PERSON` (20) watches: the 30 are set by two. */
export const WATCHERS = ['U0OPS1', 'U0OPS2'];
/** One window of jitter on every bound (a check that lands just after its slot). */
export const JITTER_WINDOWS = 1;
export const BOUND_WINDOWS = Math.max(Math.ceil(WATCHED / REPORTS.limit), MIN_INTERVAL_MS / WINDOW_MS);

export const out = (line: string) => process.stdout.write(`${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export const windows = (ms: number) => (ms / WINDOW_MS).toFixed(2);
export const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
export const uuidOf = (eventId: string) => eventId.replace(/^evt_/, '').toLowerCase();

/** A chat that answers at once and counts what it was asked to do. */
function fakeChat(): { chat: WatchChat<string>; calls: Record<string, number> } {
  const calls: Record<string, number> = { postCard: 0, updateCard: 0, reply: 0, notify: 0 };
  let ts = 0;
  const chat: WatchChat<string> = {
    postCard: async () => {
      calls.postCard = (calls.postCard ?? 0) + 1;
      ts += 1;
      return `${ts}.000100`;
    },
    updateCard: async () => {
      calls.updateCard = (calls.updateCard ?? 0) + 1;
    },
    reply: async () => {
      calls.reply = (calls.reply ?? 0) + 1;
    },
    findCard: async () => undefined,
    findReply: async () => false,
    notify: async () => {
      calls.notify = (calls.notify ?? 0) + 1;
    },
    channelRefusal: () => undefined,
  };
  return { chat, calls };
}

const messages: WatchMessages<string> = {
  card: ({ watch, state }) => `card ${watch.eventName} ${state}`,
  alert: ({ watch, condition, value }) => `alert ${watch.eventName} ${condition.key} ${value}`,
  summary: ({ watch }) => `summary ${watch.eventName}`,
  paused: (watch, reason) => `paused ${watch.eventName}: ${reason}`,
};

interface Rig {
  sim: Simulator;
  /** The process's report queue, over the client. */
  queue: InProcessReportQueue;
  scheduler: WatchScheduler;
  /** Waits for the turn in flight, if any (the scheduler's stop does not). */
  settle(): Promise<void>;
  calls: Record<string, number>;
  checks: { watch: number; person: number };
  watched: TicketingEvent[];
  /** Upcoming published events nobody watches, shuffled (seeded): what people ask about. */
  others: TicketingEvent[];
}

export async function withRig<T>(options: { watch: boolean }, body: (rig: Rig) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ orgLimit: ORG, reportLimit: REPORTS, latencyMs: LATENCY_MS, motion: 'moving' });
  const store = await openStore('sqlite://:memory:');
  let service: WatchService<string> | undefined;
  const limits = { orgLimit: ORG, reportLimit: REPORTS, reportCacheTtlMs: 60_000 / SCALE, backgroundReserve: 0.15 };
  const client = createTicketingClient({
    apiUrl: sim.url,
    apiKey: sim.apiKeys[0] as string,
    limits,
    retry: { baseDelayMs: 10, maxDelayMs: 100 },
  });
  // As buildReports and buildWatches wire it: a report a person fetched counts as a check, if the event is watched.
  const reads = new ReportReads(silentLogger);
  reads.onReportRead((eventId, report, readFor) => {
    if (readFor === 'person') void service?.observe(eventId, report).catch(() => undefined);
  });
  const queue = inProcessQueue(
    reads.reading((eventId, options) => client.fetchReport(eventId, options)),
    limits,
  );
  const { chat, calls } = fakeChat();
  const checks = { watch: 0, person: 0 };
  service = new WatchService<string>({
    store: new WatchStore(store.keyValue, silentLogger),
    claims: store.claims,
    chat,
    messages,
    // As composeBot builds it on one process: checks take spare slots of the client's own queue.
    reports: { spare: (eventId, options) => queue.spare(eventId, options) ?? Promise.resolve(undefined) },
    rule: { ...REPORTS, minIntervalMs: MIN_INTERVAL_MS },
    clock: { now: () => Date.now() },
    logger: silentLogger,
    leaseMs: 30_000 / SCALE,
    onCheck: (source) => {
      checks[source] += 1;
    },
  });
  const watchService = service;
  let inFlight: Promise<unknown> = Promise.resolve();
  const scheduler = new WatchScheduler({
    // One process on SQLite: as buildWatches does there, no cross-replica lock around a turn.
    turn: () => watchService.turn(),
    clock: { now: () => Date.now() },
    logger: silentLogger,
    pollMs: 15_000 / SCALE,
    retryMs: 2_000 / SCALE,
    track: (work) => {
      inFlight = work.catch(() => undefined);
      return work;
    },
  });
  try {
    // The events as the bot knows them (its catalog's crawl), before any report is asked for.
    const now = Date.now();
    const upcoming: TicketingEvent[] = [];
    for await (const event of client.events({ priority: 'background' })) {
      if (event.status === 'published' && event.startsAtMs > now + 86_400_000) upcoming.push(event);
    }
    const watched = upcoming.slice(0, WATCHED);
    const random = seededRandom(7);
    const others = upcoming.slice(WATCHED);
    if (others.length < RUN_WINDOWS + 11) throw new Error(`only ${others.length} unwatched upcoming events`);
    for (let i = others.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [others[i], others[j]] = [others[j] as TicketingEvent, others[i] as TicketingEvent];
    }
    if (options.watch) {
      for (const [i, event] of watched.entries()) {
        const result = await watchService.watch({
          channel: 'C0BENCH',
          personal: false,
          event: { id: event.id, name: event.name ?? event.id, startsAtMs: event.startsAtMs, endsAtMs: event.endsAtMs },
          userId: WATCHERS[i % WATCHERS.length] as string,
          conditions: [{ kind: 'sold-share', percent: 90 }, { kind: 'sold-out' }],
        });
        // A refused watch is never checked: the run would measure fewer events than it says.
        if (result.refused) throw new Error(`watch ${i + 1} of ${WATCHED} refused: ${JSON.stringify(result.refused)}`);
      }
    }
    sim.resetStats();
    return await body({
      sim,
      queue,
      scheduler,
      settle: () => inFlight.then(() => undefined),
      calls,
      checks,
      watched,
      others,
    });
  } finally {
    scheduler.stop();
    await inFlight;
    await client.close();
    await sim.close();
    await store.close();
  }
}

/** Report fetches the simulator answered 200, in order: when, and which event. */
export function reportFetches(sim: Simulator): { at: number; uuid: string }[] {
  return sim
    .stats()
    .log.filter((entry) => entry.status === 200 && /\/report$/.test(entry.path))
    .map((entry) => ({
      at: entry.at,
      uuid: (/\/v1\/events\/(?:evt_)?([^/]+)\/report$/.exec(entry.path)?.[1] ?? '').toLowerCase(),
    }));
}

/**
 * How many server windows saw 1, 2, 3 report fetches ("3x20 2x9"). Every request after the rig's
 * reset is a report here, and the report limit's fixed windows are the organization's (same
 * origin and length), so the simulator's per-window counts of the organization are the reports'.
 */
export function perServerWindow(sim: Simulator): string {
  const counts = new Map<number, number>();
  for (const n of sim.stats().organizationWindows) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[0] - a[0])
    .map(([n, windows]) => `${n}x${windows}`)
    .join(' ');
}

export function statuses(sim: Simulator): string {
  const s = sim.stats();
  return `${s.rateLimited} (429 statuses: ${s.byStatus['429'] ?? 0})`;
}

/** Every bound the run is held to, and whether it met it: printed per row and summed at the end. */
export const verdicts: { scenario: string; bound: string; pass: boolean }[] = [];
export function verdict(scenario: string, bound: string, pass: boolean): string {
  verdicts.push({ scenario, bound, pass });
  return pass ? 'pass' : 'MISS';
}
export const withinWindows = (ms: number, boundWindows: number) => ms <= (boundWindows + JITTER_WINDOWS) * WINDOW_MS;

export const rateLimitedRuns: { run: string; count: number }[] = [];
export function note429(run: string, sim: Simulator): void {
  rateLimitedRuns.push({ run, count: sim.stats().rateLimited });
}

export function table(title: string, header: string[], rows: string[][]): void {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  out(`\n${title}`);
  for (const row of all) out(`| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`);
}
