import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { App, type ReceiverEvent, webApi } from '@slack/bolt';
import { errorChain } from '../../error-chain.js';
import { StartRefusal, systemCode } from '../../lifecycle/start-refusal.js';
import { type Logger, withRequestId } from '../../logger.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { registerListeners } from '../listeners/index.js';
import { ackAlreadyGiven, ackNewConnectionsFirst, afterWaitingAcks } from '../replies/ack-first.js';
import { slackErrorCode } from '../replies/slack-errors.js';
import { boltLogger } from './bolt-logger.js';

export interface BoltAppOptions {
  botToken: string;
  /** Required for the HTTP receiver; Socket Mode does not use it. */
  signingSecret: string | undefined;
  /** Set: Socket Mode. Unset: the HTTP receiver at POST /slack/events. */
  appToken: string | undefined;
  /** Another Web API base, e.g. a fake Slack on loopback. */
  apiUrl: string | undefined;
  logger: Logger;
  /** Extra GET routes on the HTTP receiver (health and metrics). */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
  /** The MCP server at `/mcp` on the HTTP receiver, beside `/slack/events` (`MCP_SERVER=on`). */
  mcpRoute?: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  /** How failed Web API calls are tried again. @default 2 retries, 500 ms doubling to 5 s */
  retry?: SlackRetry | undefined;
}

/** The Web API client's backoff: two retries, the first after `minTimeoutMs`, doubling up to `maxTimeoutMs`. */
export interface SlackRetry {
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

/**
 * Who the bot is (`auth.test`), asked once before the app is built. Bolt would otherwise ask in
 * its constructor and keep that answer for every request: a Slack hiccup at start-up then failed
 * every request until a restart, and a bot closed before Slack answered left a rejection nobody
 * handled. A token Slack refuses, or a Slack that does not answer, fails the start in words.
 */
async function botIdentity(
  options: BoltAppOptions,
  clientOptions: webApi.WebClientOptions,
): Promise<{
  botId: string;
  botUserId: string;
  appId: string | undefined;
  teamId: string | undefined;
  enterpriseId: string | undefined;
}> {
  // Bolt's logger, so the client's warnings are log lines, not plain text beside the operator's.
  const client = new webApi.WebClient(options.botToken, { ...clientOptions, logger: boltLogger(options.logger) });
  let answer: webApi.AuthTestResponse;
  try {
    answer = await client.auth.test();
  } catch (error) {
    throw authTestRefusal(error, options.apiUrl);
  }
  if (!answer.bot_id || !answer.user_id)
    throw new StartRefusal(
      "SLACK_BOT_TOKEN: Slack named no bot for this token; use the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page",
    );
  return {
    botId: answer.bot_id,
    botUserId: answer.user_id,
    appId: answer.app_id || undefined,
    teamId: answer.team_id,
    enterpriseId: answer.enterprise_id || undefined,
  };
}

/** What each refusal of the token means, and what mends it. */
const TOKEN_REFUSALS: Record<string, string> = {
  invalid_auth:
    "Slack refused the token (invalid_auth); copy the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page",
  not_authed: 'Slack received no token (not_authed); set the Bot User OAuth Token (xoxb-...)',
  account_inactive:
    'the token belongs to an app that was deactivated or uninstalled (account_inactive); reinstall the app and use its new bot token',
  token_revoked: 'the token was revoked (token_revoked); reinstall the app and use its new bot token',
  token_expired: 'the token has expired (token_expired); reinstall the app or turn off token rotation',
};

/** `auth.test` failed: Slack refused the token, answered with something else, or could not be reached; one line each. */
function authTestRefusal(error: unknown, apiUrl: string | undefined): StartRefusal {
  const code = slackErrorCode(error);
  if (code)
    return new StartRefusal(`SLACK_BOT_TOKEN: ${TOKEN_REFUSALS[code] ?? `Slack refused auth.test (${code})`}`, {
      cause: error,
    });
  const where = apiUrl ?? 'https://slack.com/api/';
  // The variable to check is named either way: unset, SLACK_API_URL is where Slack was looked for.
  const variable = apiUrl ? 'SLACK_API_URL: ' : 'SLACK_API_URL (not set): ';
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number')
    return new StartRefusal(`${variable}Slack at ${where} answered auth.test with HTTP ${status}`, { cause: error });
  // A system code (ECONNREFUSED, ENOTFOUND), else what fetch said last (`bad port`).
  const why = systemCode(error) ?? [...errorChain(error)].at(-1)?.message;
  return new StartRefusal(
    `${variable}could not reach Slack at ${where}${why ? ` (${why})` : ''}${apiUrl ? '' : "; check this machine's network and proxy (HTTPS_PROXY), or set SLACK_API_URL"}`,
    { cause: error },
  );
}

/**
 * The Bolt app: transport only (receiver, Web API client); listeners are registered from their
 * folders and stay thin. The Web API client gets a short retry budget: people are waiting.
 */
export async function boltApp(options: BoltAppOptions, deps: SlackDeps): Promise<App> {
  const clientOptions = {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/` } : {}),
    retryConfig: {
      retries: 2,
      factor: 2,
      minTimeout: options.retry?.minTimeoutMs ?? 500,
      maxTimeout: options.retry?.maxTimeoutMs ?? 5_000,
    },
    timeout: 10_000,
  };
  const { teamId, enterpriseId, appId, ...identity } = await botIdentity(options, clientOptions);
  // The team a report's stream is addressed to and the bot's organization, known now: neither
  // asks auth.test again.
  if (teamId) deps.reportStreams?.addressTo(teamId);
  deps.audience.knowBot({ teamId, enterpriseId, userId: identity.botUserId });
  // The promo step is named to Slack by its callback id and this app's id.
  deps.promoStepPermissions?.forApp({ appId, botId: identity.botId });
  const base = {
    token: options.botToken,
    ...identity,
    logger: boltLogger(options.logger),
    clientOptions,
  };
  const EventopsApp = ackingApp((job) => deps.work.track(job));
  const app = options.appToken
    ? new EventopsApp({ ...base, socketMode: true, appToken: options.appToken })
    : new EventopsApp({
        ...base,
        signingSecret: options.signingSecret ?? '',
        customRoutes: [
          ...Object.entries(options.routes ?? {}).map(([path, handler]) => ({ path, method: 'GET', handler })),
          ...(options.mcpRoute ? [{ path: '/mcp', method: ['POST', 'GET', 'DELETE'], handler: options.mcpRoute }] : []),
        ],
      });

  // Every listener's work is tracked, so shutdown waits for the answers people are owed.
  app.use(async ({ next, body, context }) => {
    const arrived = context[RECEIVED_AT];
    const startedAt = typeof arrived === 'number' ? arrived : performance.now();
    try {
      // Every line this request causes, down to the API calls, carries one request id.
      await withRequestId(randomUUID().slice(0, 8), () => deps.work.track(next()));
    } finally {
      deps.metrics?.commandLatency.observe({ kind: requestKind(body) }, (performance.now() - startedAt) / 1000);
    }
  });
  registerListeners(app, deps);
  app.error(async (error) => {
    options.logger.error('Unhandled error in a Slack listener', { error });
  });
  return app;
}

/**
 * Starts the HTTP receiver, listening as `listen` says, with listeners' work held while it accepts
 * new connections (`ackNewConnectionsFirst`): the one way the bot opens its Slack port.
 */
export async function startHttpReceiver(app: App, listen: { port: number; host?: string }): Promise<Server> {
  const server = (await app.start(listen)) as Server;
  ackNewConnectionsFirst(server);
  return server;
}

/**
 * Bolt's App, acknowledging slash commands and button clicks before Bolt's pipeline runs: every
 * listener acknowledges these with nothing, so the receiver answers Slack once the request is
 * read and its signature checked, and the pipeline (authorization, every listener's matchers, the
 * listener) waits its turn behind the acks still to give (`afterWaitingAcks`). Run before the
 * ack, the pipeline cost 1-4 ms a request while the code was new, and a turn of the loop reading
 * twenty commands took 30-40 ms (profiled: issue 44 item 9). Requests whose ack may carry an
 * answer (view submissions, option lists) keep Bolt's order. `track` holds each deferred request
 * as work, so shutdown waits for it as for any listener.
 */
function ackingApp(track: (job: Promise<void>) => Promise<void>): typeof App {
  return class extends App {
    override async processEvent(event: ReceiverEvent): Promise<void> {
      if (!acknowledgedEmpty(event.body)) return super.processEvent(event);
      // When it arrived, for the latency metric: the wait in line is part of what a person waits.
      const customProperties = { ...event.customProperties, [RECEIVED_AT]: performance.now() };
      // Work before the ack: shutdown then always finds it, however early it comes.
      const pipeline = track(
        afterWaitingAcks().then(() => super.processEvent({ ...event, ack: ackAlreadyGiven(), customProperties })),
      );
      await event.ack();
      await pipeline;
    }
  };
}

/** The context key of when a request acknowledged before the pipeline arrived (`performance.now()`). */
const RECEIVED_AT = 'eventopsReceivedAt';

/** A slash command or a button click: requests every listener here acknowledges with no answer. */
function acknowledgedEmpty(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { type, command } = body as { type?: unknown; command?: unknown };
  return typeof command === 'string' || type === 'block_actions';
}

/** A Slack request's kind, for the latency metric: `command`, `block_actions`, `view_submission`, ... */
function requestKind(body: unknown): string {
  if (typeof body !== 'object' || body === null) return 'unknown';
  const { type, command } = body as { type?: unknown; command?: unknown };
  if (typeof command === 'string') return 'command';
  return typeof type === 'string' ? type.slice(0, 40) : 'unknown';
}
