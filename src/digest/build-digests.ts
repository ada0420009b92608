import type { SalesInsights } from '../forecast/sales-insights.js';
import type { SalesHistory } from '../history/sales-history.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import { type SalesDigestMessageInput, salesDigestComposer } from './digest-composers.js';
import { DigestRunner, type DigestRunnerOptions } from './digest-runner.js';
import { DigestScheduler } from './digest-scheduler.js';
import { DigestService } from './digest-service.js';
import { pacedPoster } from './paced-poster.js';
import { SubscriptionStore } from './subscription-store.js';
import { type DigestWatches, watchedWithFigures } from './watched-with-figures.js';

export interface BuildDigestsOptions<M>
  extends Pick<
    DigestRunnerOptions<M>,
    'claims' | 'catalog' | 'sales' | 'onOutcome' | 'retryBaseMs' | 'clock' | 'logger'
  > {
  /** How each kind of digest is worded; `sales` for the sales digest `salesFrom` makes. */
  messages: DigestRunnerOptions<M>['messages'] & { sales?: (input: SalesDigestMessageInput) => M };
  store: KeyValueStore;
  /** Where digests go: posting, finding a post that may have gone out, telling a person. */
  chat: Pick<DigestRunnerOptions<M>, 'post' | 'findPosted' | 'notify' | 'channelRefusal'>;
  /** Least time between two digest posts to one channel. */
  channelSpacingMs: number;
  graceMs: number;
  /**
   * What a sales digest is made of, when not given as `sales`: the conversation's watched events
   * (a person's own for --me) whose figures may go there, from their stored history.
   */
  salesFrom?: {
    watches: DigestWatches;
    history: Pick<SalesHistory, 'read'>;
    insights: Pick<SalesInsights, 'finished'> & Partial<Pick<SalesInsights, 'comparablesOf'>>;
  };
  /** Keeps a running digest in view of shutdown. */
  track: <T>(work: Promise<T>) => Promise<T>;
}

/**
 * The digests, of events and of sales: subscriptions in the store, one runner posting each exactly
 * once (composing each kind's message with its own strategy), the scheduler firing them.
 */
export function buildDigests<M>(options: BuildDigestsOptions<M>): DigestService {
  const { clock, logger } = options;
  const subscriptions = new SubscriptionStore(options.store, logger);
  const from = options.salesFrom;
  const salesMessage = options.messages.sales;
  const sales =
    options.sales ??
    (from &&
      salesMessage &&
      salesDigestComposer({
        watched: (conversation) => watchedWithFigures(from.watches, conversation),
        history: from.history,
        finished: (now) => from.insights.finished(now),
        ...(from.insights.comparablesOf ? { comparables: from.insights.comparablesOf } : {}),
        message: salesMessage,
        clock,
      }));
  const runner = new DigestRunner<M>({
    subscriptions,
    messages: options.messages,
    ...(sales ? { sales } : {}),
    claims: options.claims,
    catalog: options.catalog,
    ...options.chat,
    post: pacedPoster(options.chat.post, { perChannelMs: options.channelSpacingMs }),
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
    clock,
    logger: logger.child({ component: 'digest' }),
    graceMs: options.graceMs,
    retryBaseMs: options.retryBaseMs,
  });
  const scheduler = new DigestScheduler({ runner, logger, clock, track: options.track });
  return new DigestService({ store: subscriptions, runner, scheduler, clock, logger });
}
