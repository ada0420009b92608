import type { Dispatcher } from 'undici';
import type { Logger } from '../logger.js';
import type { Clock } from '../time/clock.js';
import { type RequestBudget, WindowBudget } from './budget.js';
import { type ApiObserver, type RetryOptions, TicketingClient } from './client.js';
import type { RateLimitSpec } from './rate-limit.js';
import { createTransport, type TransportTimeouts } from './transport.js';

/** The limits part of the configuration, passed whole so no caller can drop one of them. */
export interface TicketingLimits {
  orgLimit: RateLimitSpec;
  reportLimit: RateLimitSpec;
  /** How long a finished report is served from memory (the report queues' cache). */
  reportCacheTtlMs: number;
  /** Share of the budget kept back for people waiting in Slack. */
  backgroundReserve: number;
  /** Reports one person may have waiting. @default 5 */
  reportsWaitingPerPerson?: number | undefined;
  /** Reports every workflow step together may have waiting. @default 10 */
  reportStepsWaiting?: number | undefined;
  /** Watches get at least one report slot in every this many windows. @default 5 */
  watchSlotEveryWindows?: number | undefined;
}

export interface CreateTicketingClientOptions {
  apiUrl: string;
  apiKey: string;
  limits: TicketingLimits;
  /** Pass a shared (e.g. Redis-backed) budget; by default one per process. */
  budget?: RequestBudget;
  dispatcher?: Dispatcher;
  timeouts?: TransportTimeouts;
  retry?: RetryOptions;
  logger?: Logger;
  observer?: ApiObserver;
  clock?: Clock;
  random?: () => number;
}

/** Wires transport, budget and client the one way the product uses them. */
export function createTicketingClient(options: CreateTicketingClientOptions): TicketingClient {
  const budget =
    options.budget ??
    new WindowBudget({
      limit: options.limits.orgLimit.limit,
      windowMs: options.limits.orgLimit.windowMs,
      reserveRatio: options.limits.backgroundReserve,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
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
    windowMs: options.limits.orgLimit.windowMs,
    reportLimit: options.limits.reportLimit,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
  });
}
