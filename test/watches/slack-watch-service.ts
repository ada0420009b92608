import { silentLogger } from '../../src/logger.js';
import type { SlackMessage } from '../../src/render/block-kit.js';
import { watchMessages } from '../../src/slack/adapters/watch-slack.js';
import type { StoreHandle } from '../../src/store/store-handle.js';
import type { Clock } from '../../src/time/clock.js';
import type { WatchChat } from '../../src/watches/watch-chat.js';
import { WatchService, type WatchServiceOptions } from '../../src/watches/watch-service.js';
import { WatchStore } from '../../src/watches/watch-store.js';

/** What the watches posted, in order. */
export interface PostedWatchMessages {
  /** Each card as posted, then as each edit left it. */
  readonly cards: SlackMessage[];
  readonly alerts: SlackMessage[];
  /** Whether each alert was also sent to the channel. */
  readonly broadcasts: boolean[];
  /** The conversation of each alert. */
  readonly alertedIn: string[];
}

/**
 * A watch service with the Slack messages, on `handle`'s store, the test's clock and `forecast`,
 * whose chat records what it posts (the rule: 3 reports a minute, checks 10 minutes apart).
 */
export function slackWatchService(options: {
  handle: StoreHandle;
  clock: Clock;
  forecast: NonNullable<WatchServiceOptions<SlackMessage>['forecast']>;
}): PostedWatchMessages & { service: WatchService<SlackMessage> } {
  const posted: PostedWatchMessages = { cards: [], alerts: [], broadcasts: [], alertedIn: [] };
  const { cards, alerts, broadcasts, alertedIn } = posted;
  const chat: WatchChat<SlackMessage> = {
    postCard: async (_channel, message) => {
      cards.push(message);
      return `1764579600.00000${cards.length}`;
    },
    updateCard: async (_channel, _ts, message) => {
      cards.push(message);
    },
    reply: async (channel, _threadTs, message, { broadcast }) => {
      alertedIn.push(channel);
      alerts.push(message);
      broadcasts.push(broadcast);
    },
    findCard: async () => undefined,
    findReply: async () => false,
    notify: async () => undefined,
    channelRefusal: () => undefined,
  };
  const service = new WatchService<SlackMessage>({
    store: new WatchStore(options.handle.keyValue, silentLogger),
    claims: options.handle.claims,
    chat,
    messages: watchMessages,
    reports: { spare: async () => undefined },
    rule: { limit: 3, windowMs: 60_000, minIntervalMs: 10 * 60_000 },
    clock: options.clock,
    logger: silentLogger,
    forecast: options.forecast,
  });
  return { ...posted, service };
}
