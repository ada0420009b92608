import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/server.js';
import type { TicketingClient } from '../../src/ticketing/client.js';
import {
  type CreateTicketingClientOptions,
  createTicketingClient,
  type TicketingLimits,
} from '../../src/ticketing/create-client.js';

/** Production limits (the spec's), for clients in tests that do not shrink them. */
export function limits(overrides: Partial<TicketingLimits> = {}): TicketingLimits {
  return {
    orgLimit: { limit: 180, windowMs: 60_000 },
    reportLimit: { limit: 3, windowMs: 60_000 },
    reportCacheTtlMs: 60_000,
    backgroundReserve: 0.15,
    ...overrides,
  };
}

export interface Rig {
  sim: Simulator;
  client: TicketingClient;
  /** The client's limits, for a report queue over it. */
  limits: TicketingLimits;
  close(): Promise<void>;
}

/**
 * A simulator on loopback and a client of it, with the same limits on both sides unless the test
 * says otherwise. Time is shrunk through the window lengths, never by patching timers.
 */
export async function startRig(
  simOptions: SimulatorOptions = {},
  clientOptions: Partial<Omit<CreateTicketingClientOptions, 'limits'>> & Partial<TicketingLimits> = {},
): Promise<Rig> {
  const sim = await startSimulator({ anchorMs: Date.UTC(2026, 10, 22), ...simOptions });
  const { orgLimit, reportLimit, reportCacheTtlMs, backgroundReserve, ...rest } = clientOptions;
  const clientLimits = limits({
    orgLimit: orgLimit ?? simOptions.orgLimit ?? { limit: 180, windowMs: 60_000 },
    reportLimit: reportLimit ?? simOptions.reportLimit ?? { limit: 3, windowMs: 60_000 },
    ...(reportCacheTtlMs === undefined ? {} : { reportCacheTtlMs }),
    ...(backgroundReserve === undefined ? {} : { backgroundReserve }),
  });
  const client = createTicketingClient({
    apiUrl: sim.url,
    apiKey: sim.apiKeys[0] as string,
    limits: clientLimits,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...rest,
  });
  return {
    sim,
    client,
    limits: clientLimits,
    close: async () => {
      await client.close();
      await sim.close();
    },
  };
}

/** Runs `count` tasks with at most `concurrency` at once. */
export async function runPool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
