import type { App } from '@slack/bolt';
import type { Config } from '../../config.js';
import type { BuiltMcp } from '../../mcp/build-mcp.js';
import { PendingPromoChanges } from '../../promo/pending-promo-changes.js';
import type { StoreHandle } from '../../store/store-handle.js';
import { mcpSlack } from '../adapters/mcp-slack.js';
import { PromoEditors } from '../deps/promo-editors.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { workflowRuns } from '../deps/workflow-runs.js';
import { PromoStepPermissions } from '../listeners/workflow-steps/promo-step-permissions.js';
import { type BoltAppOptions, boltApp } from './bolt-app.js';
import type { SlackSides } from './build-slack-sides.js';

/** The parts of the bot the listeners use, built by the other areas. */
export type SlackParts = Omit<
  SlackDeps,
  | 'editors'
  | 'promoStepPermissions'
  | 'pending'
  | 'runs'
  | 'interactive'
  | 'pageSize'
  | 'progressIntervalMs'
  | 'unfurlFigures'
  | 'unfurlStyle'
  | 'audience'
  | 'reportStreams'
  | 'mcpTokens'
>;

export interface BuildSlackAppOptions {
  slack: Config['slack'] & { botToken: string };
  store: Pick<StoreHandle, 'keyValue' | 'claims'>;
  parts: SlackParts;
  /** The areas' Slack sides: listeners use their audience and streams; they get the app's client once it is built. */
  sides: Pick<SlackSides, 'bind' | 'audience' | 'reportStreams'>;
  routes: BoltAppOptions['routes'];
  /** How failed Web API calls are tried again. @default 2 retries, 500 ms doubling to 5 s */
  retry?: BoltAppOptions['retry'];
  timings?: SlackTimings;
  /** The MCP server (`MCP_SERVER=on`): its route on the HTTP receiver, people's tokens, and its Slack side, given here. */
  mcp?: Pick<BuiltMcp, 'route' | 'tokens' | 'slack'> | undefined;
}

/** How long people and confirmations wait (`ComposeOptions` names the same). */
export interface SlackTimings {
  /** A person's API call gives up after this long. @default 25 s */
  interactiveTimeoutMs?: number | undefined;
  /** Longest a person waits for the rate limit before being told how long it will be. @default 10 s */
  maxRateLimitWaitMs?: number | undefined;
  /** @default 2 s */
  progressIntervalMs?: number | undefined;
  /** How long a promo confirmation stays valid. @default 10 minutes */
  promoConfirmationTtlMs?: number | undefined;
  /** How often the promo editors are read again, to keep the promo step restricted to them. @default 5 minutes */
  promoStepRefreshMs?: number | undefined;
}

/**
 * The Slack side: the Bolt app with every listener, and what only listeners use (who may edit
 * promo codes, pending confirmations, workflow runs already seen, a person's API call options).
 */
export function buildSlackApp(options: BuildSlackAppOptions): Promise<App> {
  const { slack, store, parts, sides, timings = {} } = options;
  const { clock, logger } = parts;
  const interactiveTimeoutMs = timings.interactiveTimeoutMs ?? 25_000;
  const maxRateLimitWaitMs = timings.maxRateLimitWaitMs ?? 10_000;
  const editors = new PromoEditors(slack.promoEditors, { logger, clock });
  // Only editors may add "Set promo quantity" to a workflow: set at start, again when they change.
  const promoStepPermissions = new PromoStepPermissions({
    editors,
    logger,
    refreshMs: timings.promoStepRefreshMs,
    signal: parts.work.stopping,
    clock,
  });
  const deps: SlackDeps = {
    ...parts,
    audience: sides.audience,
    reportStreams: sides.reportStreams,
    editors,
    promoStepPermissions,
    pending: new PendingPromoChanges({
      store: store.keyValue,
      claims: store.claims,
      clock,
      ...(timings.promoConfirmationTtlMs ? { ttlMs: timings.promoConfirmationTtlMs } : {}),
    }),
    runs: workflowRuns(store.claims, clock, logger),
    progressIntervalMs: timings.progressIntervalMs ?? 2_000,
    pageSize: 10,
    unfurlFigures: slack.unfurlFigures,
    unfurlStyle: slack.unfurlStyle,
    mcpTokens: options.mcp?.tokens,
    interactive: () => ({
      signal: AbortSignal.timeout(interactiveTimeoutMs),
      priority: 'interactive',
      maxRateLimitWaitMs,
    }),
  };
  const app = boltApp(
    {
      botToken: slack.botToken,
      signingSecret: slack.signingSecret,
      appToken: slack.appToken,
      apiUrl: slack.apiUrl,
      logger,
      ...(options.routes ? { routes: options.routes } : {}),
      retry: options.retry,
      mcpRoute: slack.appToken ? undefined : options.mcp?.route,
    },
    deps,
  );
  return app.then((built) => {
    promoStepPermissions.start(built.client);
    // Who can read a conversation, and every post of the watches, digests and shared reports, go
    // through the app's client.
    sides.bind(built.client);
    options.mcp?.slack.set(mcpSlack(deps, built.client));
    return built;
  });
}
