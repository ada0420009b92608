import type { SalesInsights } from '../forecast/sales-insights.js';
import type { Logger } from '../logger.js';
import type { ReportReadSubscription } from '../reports/report-reads.js';
import type { ClaimStore } from '../store/claims.js';
import { type KeyValueStore, LockBusy } from '../store/key-value-store.js';
import { NotFoundError } from '../ticketing/errors.js';
import type { RateLimitSpec } from '../ticketing/rate-limit.js';
import type { EventReport } from '../ticketing/schemas.js';
import type { Clock } from '../time/clock.js';
import { AlertQuieting } from './alert-quieting.js';
import type { WatchChat, WatchMessages } from './watch-chat.js';
import { WatchScheduler, type WatchSchedulerOptions } from './watch-scheduler.js';
import { type WatchReports, WatchService, type WatchServiceOptions, type WatchTurn } from './watch-service.js';
import { WatchStore } from './watch-store.js';

export interface BuildWatchesOptions<M> {
  store: KeyValueStore;
  claims: ClaimStore;
  chat: WatchChat<M>;
  messages: WatchMessages<M>;
  /**
   * Where checks take their reports: spare slots only. Unless it says otherwise, a 404 from the
   * client means the service does not know the event.
   */
  reports: WatchReports;
  /** Where a report a person fetched is heard: it counts as a check of the event, if it is watched. */
  reads: ReportReadSubscription;
  /** The report endpoint's limit: the slots checks go round. */
  reportLimit: RateLimitSpec;
  minIntervalMs: number;
  /** Most active watches one person sets up. @default 20 */
  maxWatchesPerPerson?: number;
  /** Who would read a watch's figures (its conversation, its person): the figures rule decides. */
  reader?: WatchServiceOptions<M>['reader'];
  figuresPolicy?: WatchServiceOptions<M>['figuresPolicy'];
  /** The event's forecast from its sales history, for the forecast conditions and the card. */
  forecast?: WatchServiceOptions<M>['forecast'];
  /** Where `forecast` comes from when not given: the sales insights. */
  insights?: Pick<SalesInsights, 'of'>;
  /** How long a watch claim is held before others may take it (a check's is renewed while it runs). */
  leaseMs?: number;
  /** The event's dates as the catalog in memory has them (a rescheduled event moves its watch). */
  eventDates?: WatchServiceOptions<M>['eventDates'];
  onCheck?: WatchServiceOptions<M>['onCheck'];
  onAlert?: WatchServiceOptions<M>['onAlert'];
  onTurn?: WatchSchedulerOptions['onTurn'];
  /**
   * With replicas (a shared store): a turn holds the store's `watch:turn` lock (renewed while it
   * runs), so one check is in flight across all of them. Never with SQLite: its lock is a transaction for the whole store, and
   * one process runs one turn at a time anyway.
   */
  acrossReplicas: boolean;
  /** Keeps a running check in view of shutdown. */
  track: <T>(work: Promise<T>) => Promise<T>;
  clock: Clock;
  logger: Logger;
}

/** What `buildWatches` makes. */
export interface BuiltWatches<M = unknown> {
  service: WatchService<M>;
  scheduler: WatchScheduler;
  /** One turn as the scheduler takes it (under the lock with replicas). */
  turn: () => Promise<WatchTurn>;
  /** A report a person fetched: a check of the event if it is watched (tracked, so shutdown waits for it). */
  personFetched: (eventId: string, report: EventReport) => void;
}

/**
 * Watches: the service (cards, alerts, claims) and its scheduler. With replicas a turn holds the
 * store's `watch:turn` lock, so one check is in flight at a time across them: the slots go to people first.
 */
export function buildWatches<M>(options: BuildWatchesOptions<M>): BuiltWatches<M> {
  const logger = options.logger.child({ component: 'watches' });
  const store = new WatchStore(options.store, logger);
  const { insights } = options;
  const forecast: WatchServiceOptions<M>['forecast'] =
    options.forecast ??
    (insights &&
      (async (eventId, report) => {
        const insight = await insights.of(eventId, report);
        return (
          insight && { forecast: insight.forecast, startsAtMs: insight.startsAtMs, comparables: insight.comparables }
        );
      }));
  const service = new WatchService<M>({
    store,
    quieting: new AlertQuieting(store, options.store, options.clock),
    claims: options.claims,
    chat: options.chat,
    messages: options.messages,
    reports: {
      spare: (eventId, spareOptions) => options.reports.spare(eventId, spareOptions),
      isNotFound: (error) => options.reports.isNotFound?.(error) ?? error instanceof NotFoundError,
      current: options.reports.current?.bind(options.reports),
    },
    rule: { ...options.reportLimit, minIntervalMs: options.minIntervalMs },
    clock: options.clock,
    logger,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.maxWatchesPerPerson !== undefined ? { maxWatchesPerPerson: options.maxWatchesPerPerson } : {}),
    reader: options.reader,
    figuresPolicy: options.figuresPolicy,
    ...(forecast ? { forecast } : {}),
    ...(options.eventDates ? { eventDates: options.eventDates } : {}),
    ...(options.onCheck ? { onCheck: options.onCheck } : {}),
    ...(options.onAlert ? { onAlert: options.onAlert } : {}),
  });
  // A replica that finds the turn taken does not wait for it: it looks again in a moment. A turn
  // lives no longer than the claims it takes, nor than the store's own locks (renewed while it
  // runs): a replica that dies in its turn holds the others off no longer than either.
  const turnLock = { waitMs: 0, ...(options.leaseMs !== undefined ? { lockMs: options.leaseMs } : {}) };
  const turn = options.acrossReplicas
    ? () =>
        options.store
          .exclusive('watch:turn', () => service.turn(), turnLock)
          .catch((error: unknown) => {
            if (error instanceof LockBusy) return { kind: 'turn-elsewhere' } as const;
            throw error;
          })
    : () => service.turn();
  const scheduler = new WatchScheduler({
    turn,
    clock: options.clock,
    logger,
    track: options.track,
    ...(options.onTurn ? { onTurn: options.onTurn } : {}),
  });
  const personFetched = (eventId: string, report: EventReport) => {
    // Stamped now, as it arrives: a check waiting for the event's turn keeps its place in time.
    const readAt = options.clock.now();
    options
      .track(service.observe(eventId, report, readAt))
      .catch((error: unknown) => logger.warn('A fetched report could not update its watches', { eventId, error }));
  };
  options.reads.onReportRead((eventId, report, readFor) => {
    if (readFor === 'person') personFetched(eventId, report);
  });
  return { service, scheduler, turn, personFetched };
}
