import { createHash } from 'node:crypto';
import type { Queue, Worker } from 'bullmq';
import type { ScriptRunner } from '../../ticketing/shared-budget.js';

export type BullClient = Awaited<Queue['client']>;

/**
 * A BullMQ client once it has connected, without waiting on one that never did (its promise only
 * settles when a connection is made).
 */
export async function connectedClient(client: Promise<BullClient>): Promise<BullClient | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const notYet = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, 100, undefined);
  });
  try {
    return await Promise.race([client.catch(() => undefined), notYet]);
  } finally {
    clearTimeout(timer);
  }
}

export const isReady = (client: BullClient | undefined): boolean => client?.status === 'ready';

/** Lua through BullMQ's own connection, as commands of its client (EVALSHA, loaded when missing). */
export function scriptRunner(queue: Queue): ScriptRunner {
  const names = new Map<string, string>();
  const defined = new WeakMap<object, Set<string>>();
  return async (script, keys, args) => {
    const client = await queue.client;
    let name = names.get(script);
    if (!name) {
      name = `eventops_${createHash('sha1').update(script).digest('hex').slice(0, 16)}_${keys.length}`;
      names.set(script, name);
    }
    let known = defined.get(client);
    if (!known) {
      known = new Set();
      defined.set(client, known);
    }
    if (!known.has(name)) {
      client.defineCommand(name, { numberOfKeys: keys.length, lua: script });
      known.add(name);
    }
    return client.runCommand(name, [...keys, ...args]);
  };
}

/**
 * Closes a replica's worker, then its queue. With Redis away, they drop their connections instead
 * of closing them: a Redis that has gone never answers QUIT, and a job in hand cannot finish
 * without it (its answer is marked in Redis before it goes out), so the replica would wait out its
 * shutdown timeout for nothing. With Redis there, both close as usual (a job just finished is
 * still being marked completed: dropping the worker's connection then would see it run again).
 */
export async function closeWorkerAndQueue(worker: Worker, queue: Queue): Promise<void> {
  const workerAway = !isReady(await connectedClient(worker.client));
  await worker.close(workerAway).catch(() => undefined);
  const queueClient = await connectedClient(queue.client);
  // Dropped without waiting: a client between reconnects never says it ended. A queue that never
  // connected is dropped by its own close.
  if (queueClient && !isReady(queueClient)) queueClient.disconnect();
  else await queue.close().catch(() => undefined);
}
