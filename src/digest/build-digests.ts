import type { EventCatalog } from '../catalog/event-catalog.js';
import type { Logger } from '../logger.js';
import type { ClaimStore } from '../store/claims.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { Clock } from '../time/clock.js';
import type { DigestComposer } from './digest-composers.js';
import { type DigestMessages, DigestRunner, type DigestRunnerOptions } from './digest-runner.js';
import { DigestScheduler } from './digest-scheduler.js';
import { DigestService } from './digest-service.js';
import { pacedPoster } from './paced-poster.js';
import { SubscriptionStore } from './subscription-store.js';

export interface BuildDigestsOptions<M> {
  store: KeyValueStore;
  claims: ClaimStore;
  catalog: Pick<EventCatalog, 'all'>;
  messages: DigestMessages<M>;
  /** Composes the sales digests (`--sales`): the watched events' sales, from their stored history. */
  sales?: DigestComposer<M> | undefined;
  /** Where digests go: posting, finding a post that may have gone out, telling a person. */
  chat: Pick<DigestRunnerOptions<M>, 'post' | 'findPosted' | 'notify' | 'channelRefusal'>;
  onOutcome: DigestRunnerOptions<M>['onOutcome'];
  /** Least time between two digest posts to one channel. */
  channelSpacingMs: number;
  graceMs: number;
  retryBaseMs?: number | undefined;
  /** Keeps a running digest in view of shutdown. */
  track: <T>(work: Promise<T>) => Promise<T>;
  clock: Clock;
  logger: Logger;
}

/**
 * The digests, of events and of sales: subscriptions in the store, one runner posting each exactly
 * once (composing each kind's message with its own strategy), the scheduler firing them.
 */
export function buildDigests<M>(options: BuildDigestsOptions<M>): DigestService {
  const { clock, logger } = options;
  const subscriptions = new SubscriptionStore(options.store, logger);
  const runner = new DigestRunner<M>({
    subscriptions,
    messages: options.messages,
    ...(options.sales ? { sales: options.sales } : {}),
    claims: options.claims,
    catalog: options.catalog,
    ...options.chat,
    post: pacedPoster(options.chat.post, { perChannelMs: options.channelSpacingMs }),
    ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
    clock,
    logger: logger.child({ component: 'digest' }),
    graceMs: options.graceMs,
    ...(options.retryBaseMs ? { retryBaseMs: options.retryBaseMs } : {}),
  });
  const scheduler = new DigestScheduler({ runner, logger, clock, track: options.track });
  return new DigestService({ store: subscriptions, runner, scheduler, clock, logger });
}
