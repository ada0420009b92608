import type { KeyValueStore } from '../store/key-value-store.js';
import { DigestRunner, type DigestRunnerOptions } from './digest-runner.js';
import { DigestScheduler } from './digest-scheduler.js';
import { DigestService } from './digest-service.js';
import { pacedPoster } from './paced-poster.js';
import { SubscriptionStore } from './subscription-store.js';

export interface BuildDigestsOptions<M>
  extends Pick<
    DigestRunnerOptions<M>,
    'claims' | 'catalog' | 'messages' | 'sales' | 'onOutcome' | 'retryBaseMs' | 'clock' | 'logger'
  > {
  store: KeyValueStore;
  /** Where digests go: posting, finding a post that may have gone out, telling a person. */
  chat: Pick<DigestRunnerOptions<M>, 'post' | 'findPosted' | 'notify' | 'channelRefusal'>;
  /** Least time between two digest posts to one channel. */
  channelSpacingMs: number;
  graceMs: number;
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
    retryBaseMs: options.retryBaseMs,
  });
  const scheduler = new DigestScheduler({ runner, logger, clock, track: options.track });
  return new DigestService({ store: subscriptions, runner, scheduler, clock, logger });
}
