import type { Dispatcher } from 'undici';
import type { RateLimitSpec } from '../config.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { type RequestBudget, WindowBudget } from './budget.js';
import { type RetryOptions, TicketingClient } from './client.js';
import { createTransport, type TransportTimeouts } from './transport.js';

export interface CreateTicketingClientOptions {
  apiUrl: string;
  apiKey: string;
  orgLimit: RateLimitSpec;
  reportLimit: RateLimitSpec;
  /** @default 60000 */
  reportCacheTtlMs?: number;
  /** Share of the budget kept back for people waiting in Slack. @default 0.15 */
  backgroundReserve?: number;
  /** Pass a shared (e.g. Redis-backed) budget; by default one per process. */
  budget?: RequestBudget;
  dispatcher?: Dispatcher;
  timeouts?: TransportTimeouts;
  retry?: RetryOptions;
  logger?: Logger;
  clock?: Clock;
  random?: () => number;
}

/** Wires transport, budget and client the one way the product uses them. */
export function createTicketingClient(options: CreateTicketingClientOptions): TicketingClient {
  const budget =
    options.budget ??
    new WindowBudget({
      limit: options.orgLimit.limit,
      windowMs: options.orgLimit.windowMs,
      reserveRatio: options.backgroundReserve ?? 0.15,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  const transport = createTransport({
    baseUrl: options.apiUrl,
    apiKey: options.apiKey,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return new TicketingClient({
    transport,
    budget,
    windowMs: options.orgLimit.windowMs,
    reportLimit: options.reportLimit,
    reportCacheTtlMs: options.reportCacheTtlMs ?? 60_000,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
}
