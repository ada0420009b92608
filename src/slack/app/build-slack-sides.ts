import type { webApi } from '@slack/bolt';
import type { Config } from '../../config.js';
import type { DigestMessages } from '../../digest/digest-runner.js';
import { LatePart } from '../../lifecycle/late-part.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SlackMessage } from '../../render/block-kit.js';
import { digestMessage, digestPausedMessage } from '../../render/digest-blocks.js';
import { salesDigestMessage } from '../../render/sales-digest-blocks.js';
import type { StoreHandle } from '../../store/store-handle.js';
import type { Clock } from '../../time/clock.js';
import type { WatchReader } from '../../watches/watch-figures.js';
import { type DigestSlack, digestSlack } from '../adapters/digest-slack.js';
import { watchMessages, watchSlack } from '../adapters/watch-slack.js';
import { type ConversationAudience, conversationAudience } from '../deps/conversation-audience.js';
import { storeForgetMarks } from '../deps/forget-marks.js';
import { ReportStreams } from '../deps/report-streams.js';
import { watchReader } from '../deps/watch-reader.js';
import { workflowRuns } from '../deps/workflow-runs.js';
import { slackReportDelivery } from '../reports/ask-for-report.js';

export interface BuildSlackSidesOptions {
  slack: Pick<Config['slack'], 'reportStreaming'>;
  figuresPolicy: Config['figuresPolicy'];
  /** `shared` is set with replicas: what one replica learns of a conversation, the others hear of. */
  store: Pick<StoreHandle, 'keyValue' | 'claims' | 'shared'>;
  /** What a report delivered on this replica (asked on any) needs besides Slack. */
  delivery: Pick<Parameters<typeof slackReportDelivery>[0], 'activity' | 'reportLimit' | 'insights'>;
  metrics: Metrics;
  clock: Clock;
  logger: Logger;
}

/** What the areas do in Slack, handed to their builders (which may not import `slack/`). */
export interface SlackSides {
  /** Who can read a conversation and who a person is: the figures rule's facts, for every path that sends figures. */
  audience: ConversationAudience;
  /** One per process: the stream methods' tiers are counted across all of its reports. */
  reportStreams: ReportStreams | undefined;
  /** The replicas' shared queue's `deliver`: a report finished in Slack on the replica that read it. */
  deliverReport: ReturnType<typeof slackReportDelivery>;
  watches: { chat: ReturnType<typeof watchSlack>; messages: typeof watchMessages; reader: WatchReader };
  digests: { chat: DigestSlack; messages: DigestMessages<SlackMessage> & { sales: typeof salesDigestMessage } };
  /** Gives the sides the app's client, once the app is built (`buildSlackApp` does it). */
  bind(client: webApi.WebClient): void;
}

/**
 * The Slack side of each area (reports, watches, digests), built before the app because the app's
 * listeners use those areas. They post through the app's client, which exists only once the app
 * does: that loop is why the client is a `LatePart`, read when something is posted, never before.
 */
export function buildSlackSides(options: BuildSlackSidesOptions): SlackSides {
  const { store, metrics, clock, logger } = options;
  const app = new LatePart<webApi.WebClient>("The Slack app's client");
  const client = () => app.get();
  // With replicas an event that says who reads a conversation reaches one of them: the others keep
  // what they learnt for 30 s, not 5 minutes, and the shared marks make a forget heard by all.
  const audience = conversationAudience({
    logger,
    clock,
    ...(store.shared ? { ttlMs: 30_000, marks: storeForgetMarks(store.keyValue, 60_000) } : {}),
  });
  const reportStreams =
    options.slack.reportStreaming === 'on' ? new ReportStreams({ clock, logger, metrics }) : undefined;
  return {
    audience,
    reportStreams,
    deliverReport: slackReportDelivery(
      {
        ...options.delivery,
        clock,
        logger,
        metrics,
        store: store.keyValue,
        audience,
        figuresPolicy: options.figuresPolicy,
        runs: workflowRuns(store.claims, clock, logger),
        streams: reportStreams,
      },
      client,
    ),
    watches: { chat: watchSlack(client, metrics, logger), messages: watchMessages, reader: watchReader(audience) },
    digests: {
      chat: digestSlack(client, metrics, logger),
      messages: { digest: digestMessage, paused: digestPausedMessage, sales: salesDigestMessage },
    },
    bind: (built) => {
      app.set(built);
      audience.bind(built);
    },
  };
}
