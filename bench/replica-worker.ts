/**
 * One replica's share of a benchmark demand, in a process of its own: a client on the shared
 * Redis budget, as every bot replica holds one. Waits for "go" on stdin, sends its requests
 * through a pool of 20 to the service "go" names, prints when it finished.
 */
import { createInterface } from 'node:readline';
import { openStore } from '../src/store/open-store.js';
import { createTicketingClient } from '../src/ticketing/create-client.js';
import { SharedBudget } from '../src/ticketing/shared-budget.js';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const orgLimit = { limit: Number(env('ORG_LIMIT')), windowMs: Number(env('WINDOW_MS')) };
const demand = Number(env('DEMAND'));
const store = await openStore(env('STORE_URL'));
if (!store.shared) throw new Error('STORE_URL must be a redis:// URL');
const budget = new SharedBudget({ run: store.shared.runScript, key: env('BUDGET_KEY'), ...orgLimit, reserveRatio: 0 });
// The service is named with "go": the benchmark starts it only then, so its first window starts with the run.
const clientOf = (apiUrl: string, apiKey: string) =>
  createTicketingClient({
    apiUrl,
    apiKey,
    limits: {
      orgLimit,
      reportLimit: { limit: 3, windowMs: orgLimit.windowMs },
      reportCacheTtlMs: 1,
      backgroundReserve: 0,
    },
    budget,
    retry: { baseDelayMs: 10, maxDelayMs: 100 },
  });
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
let started = false;
lines.on('close', () => {
  if (!started) process.exit(0); // the benchmark is gone
});
for await (const line of lines) {
  const [word, apiUrl, apiKey] = line.split(' ');
  if (word !== 'go' || !apiUrl || !apiKey) continue;
  started = true;
  const client = clientOf(apiUrl, apiKey);
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next++ < demand) await client.listEvents({ limit: 1 });
    }),
  );
  process.stdout.write(`${JSON.stringify({ finishedAt: Date.now() })}\n`);
  await client.close();
  break;
}
await store.close();
