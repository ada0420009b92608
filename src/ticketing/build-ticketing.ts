import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import type { ApiObserver, RetryOptions, TicketingClient } from './client.js';
import { createTicketingClient, type TicketingLimits } from './create-client.js';
import type { ScriptRunner } from './shared-budget.js';
import { attemptDeadlineMs, type TransportTimeouts } from './transport.js';

export interface BuildTicketingOptions {
  apiUrl: string;
  apiKey: string;
  limits: TicketingLimits;
  /** With replicas: the shared Redis, whose one budget they all spend. */
  shared?: { runScript: ScriptRunner; namespace: string } | undefined;
  observer: ApiObserver;
  clock: Clock;
  logger: Logger;
  /** @default the client's (5 attempts, 200 ms doubling to 5 s) */
  retry?: RetryOptions | undefined;
  /** @default the transport's (a 20 s deadline for each attempt) */
  timeouts?: TransportTimeouts;
}

/**
 * The one client of the Event Ticketing Service. One process keeps its budget in memory; replicas
 * keep one budget for all of them in the shared Redis (its Lua loaded only then, so one process on
 * SQLite never holds it).
 */
export async function buildTicketing(options: BuildTicketingOptions): Promise<TicketingClient> {
  const { shared, limits, clock, logger } = options;
  const budget = shared
    ? new (await import('./shared-budget.js')).SharedBudget({
        run: shared.runScript,
        // One hash tag ({...}) for all of the budget's keys: one cluster slot holds them.
        key: `${shared.namespace}:budget`,
        limit: limits.orgLimit.limit,
        windowMs: limits.orgLimit.windowMs,
        reserveRatio: limits.backgroundReserve,
        // A replica that died mid-request holds the others' probe back no longer than that
        // request could have taken (30 s), not two windows (2 minutes).
        longestRequestMs: attemptDeadlineMs(options.timeouts),
        clock,
        logger: logger.child({ component: 'budget' }),
      })
    : undefined;
  return createTicketingClient({
    apiUrl: options.apiUrl,
    apiKey: options.apiKey,
    limits,
    ...(budget ? { budget } : {}),
    logger: logger.child({ component: 'ticketing' }),
    observer: options.observer,
    clock,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  });
}
