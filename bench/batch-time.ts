import { startSimulator } from '../src/simulator/server.js';
import { createTicketingClient } from '../src/ticketing/create-client.js';

/**
 * How long `batch` requests take through a pool of 20 with no limit in the way, on this machine
 * (client and simulator in one process), measured warm: the part of a time floor that is not
 * waiting for windows.
 */
export async function measureBatchMs(options: { windowMs: number; latencyMs: number; batch: number }): Promise<number> {
  const unlimited = { limit: 1_000_000, windowMs: options.windowMs };
  const sim = await startSimulator({ orgLimit: unlimited, latencyMs: options.latencyMs });
  const client = createTicketingClient({
    apiUrl: sim.url,
    apiKey: sim.apiKeys[0] as string,
    limits: {
      orgLimit: unlimited,
      reportLimit: { limit: 3, windowMs: options.windowMs },
      reportCacheTtlMs: 1,
      backgroundReserve: 0,
    },
  });
  const run = async () => {
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next++ < options.batch) await client.listEvents({ limit: 1 });
      }),
    );
    return performance.now() - started;
  };
  await run();
  const measured = Math.round(Math.min(await run(), await run()));
  await client.close();
  await sim.close();
  return measured;
}
