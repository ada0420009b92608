import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { salesInsights } from '../../src/forecast/sales-insights.js';
import { createLogger } from '../../src/logger.js';
import { type SandboxStack, startSandboxStack } from '../../src/sandbox/sandbox-stack.js';
import { BRISK_EVENTS } from '../../src/simulator/moving-figures.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 23, 11, 0);

const dir = mkdtempSync(join(tmpdir(), 'sandbox-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const each of open.splice(0).reverse()) await each.close();
});

async function reportOf(sim: Simulator, id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.url}/v1/events/${id}/report`, {
    headers: { 'Service-Api-Key': sim.apiKeys[0] as string },
  });
  return (await response.json()) as Record<string, unknown>;
}

const listedFirst = (sim: Simulator, now: number) =>
  sim.catalog.events
    .filter((event) => event.status === 'published' && sim.salesProfile(event.id).endMs > now)
    .sort((a, b) => a.startsAtMs - b.startsAtMs || a.id.localeCompare(b.id))
    .slice(0, BRISK_EVENTS);

async function stack(store?: string): Promise<SandboxStack> {
  const started = await startSandboxStack({
    env: { LOG_LEVEL: 'error' },
    logger: createLogger({ level: 'error', write: () => {} }),
    ...(store ? { store } : {}),
  });
  open.push(started);
  await started.salesHistorySeeded;
  return started;
}

describe("the simulator's past", () => {
  it('serves a few weeks of reports for an event listed first, ending where its report stands now', async () => {
    const sim = await startSimulator({ clock: { now: () => START }, anchorMs: START, motion: 'moving' });
    open.push(sim);
    const [event] = listedFirst(sim, START);
    if (!event) throw new Error('the seed lists an upcoming event');
    const past = sim.pastReports(event.id);
    expect(past.length).toBeGreaterThan(20);
    const first = past[0];
    const last = past.at(-1);
    expect(START - (first?.at ?? START)).toBeGreaterThan(14 * DAY);
    expect(last?.at).toBe(START);
    const sold = past.map((each) => each.report.ticketsSold as number);
    expect(sold).toEqual([...sold].sort((a, b) => a - b));
    expect(sold[0]).toBeLessThan((sold.at(-1) ?? 0) / 4);
    // The last past report is the report a person reads now.
    expect(last?.report.ticketsSold).toBe((await reportOf(sim, event.id)).ticketsSold);
  });

  it('serves the whole sale of an event that is over, up to its end', async () => {
    const sim = await startSimulator({ clock: { now: () => START }, anchorMs: START, motion: 'moving' });
    open.push(sim);
    const over = sim.catalog.events.find(
      (event) => event.status === 'published' && sim.salesProfile(event.id).endMs <= START,
    );
    if (!over) throw new Error('the seed has events that are over');
    const past = sim.pastReports(over.id);
    expect(past.at(-1)?.at).toBeLessThanOrEqual(sim.salesProfile(over.id).endMs);
    expect(past.at(-1)?.report.ticketsSold).toBe((await reportOf(sim, over.id)).ticketsSold);
  });
});

describe('the sandbox at start', () => {
  it('has history for the events listed first and for finished ones, so a forecast shows at once', async () => {
    const started = await stack();
    const sim = started.bot.simulator;
    if (!sim) throw new Error('the sandbox runs on the simulator');
    const now = Date.now();
    const first = listedFirst(sim, now);
    for (const event of first) {
      const { points } = await started.bot.history.read(event.id);
      expect(points.length, event.name).toBeGreaterThan(20);
      expect(now - (points[0]?.at ?? now)).toBeGreaterThan(14 * DAY);
    }
    expect((await started.bot.history.finished(now)).length).toBeGreaterThanOrEqual(3);
    const insights = salesInsights({
      history: started.bot.history,
      eventInfo: (id) => {
        const event = sim.catalog.events.find((each) => each.id === id);
        return event && { startsAtMs: event.startsAtMs, timezone: event.timezone };
      },
      clock: { now: () => Date.now() },
    });
    // The first of them not started yet: a forecast is of the sale until the start.
    const upcoming = first.find((event) => event.startsAtMs > now + 5 * 60_000);
    const insight = await insights.of(upcoming?.id as string);
    expect(insight?.forecast, JSON.stringify(insight?.forecast)).toMatchObject({ kind: 'forecast' });
  });

  it('keeps its store in a file across restarts, and seeds an event only once', async () => {
    const store = `sqlite://${join(dir, 'sandbox.sqlite')}`;
    const once = await stack(store);
    const id = listedFirst(once.bot.simulator as Simulator, Date.now())[0]?.id as string;
    const before = (await once.bot.history.read(id)).points.length;
    expect(before).toBeGreaterThan(20);
    await once.close();
    open.splice(open.indexOf(once), 1);
    const again = await stack(store);
    expect((await again.bot.history.read(id)).points.length).toBe(before);
  });

  it('takes its store from SANDBOX_STORE: a local file unless asked for memory, never Redis', () => {
    expect(loadConfig({}).sandboxStoreUrl).toBe('sqlite://./data/sandbox.sqlite');
    expect(loadConfig({ SANDBOX_STORE: 'memory' }).sandboxStoreUrl).toBe('sqlite://:memory:');
    expect(loadConfig({ SANDBOX_STORE: 'sqlite://./tmp/demo.sqlite' }).sandboxStoreUrl).toBe(
      'sqlite://./tmp/demo.sqlite',
    );
    expect(() => loadConfig({ SANDBOX_STORE: 'redis://127.0.0.1:6379' })).toThrow(/SANDBOX_STORE/);
  });
});
