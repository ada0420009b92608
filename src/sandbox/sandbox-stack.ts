import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { eventLinks } from '../catalog/event-links.js';
import { type Bot, type ComposeOptions, composeBot } from '../compose.js';
import { loadConfig } from '../config.js';
import type { Logger } from '../logger.js';
import { countedWords } from '../render/plural.js';
import { keptMessagesPath } from './kept-messages.js';
import { type Sandbox, startSandbox } from './sandbox-server.js';
import { EDITORS_GROUP } from './sandbox-state.js';
import { seedSalesHistory } from './seed-sales-history.js';

/**
 * The sandbox's store unless the caller names one: in memory, gone at exit (tests, screenshots).
 * `npm start` passes SANDBOX_STORE's, a file of its own by default. Never a deployment's STORE_URL.
 */
export const SANDBOX_STORE_URL = 'sqlite://:memory:';

/** The event page the sandbox unfolds links of, unless EVENT_PAGE_URL names the organization's. */
export const SANDBOX_EVENT_PAGE_URL = 'https://tickets.example.com/e/{id}';

export interface SandboxStack {
  sandbox: Sandbox;
  bot: Bot;
  /** The page to open. */
  url: string;
  /** The event page links that unfold in the sandbox, as a pattern: `https://tickets.example.com/e/<event id>`. */
  eventLinkPattern: string | undefined;
  /** Where agents reach the bot's MCP server (`/mcp` on the bot's port, not the page's); undefined when it is off. */
  mcpUrl: string | undefined;
  /** Settles once the simulator's past is in the sales history: how many events it seeded (0 on a real service). */
  salesHistorySeeded: Promise<number>;
  close(): Promise<void>;
}

/**
 * The whole bot in a local Slack sandbox: the real bot (HTTP receiver, unchanged code paths)
 * talks to the sandbox as its Slack, with a signing secret made up at start; the built-in
 * simulator stands in for the Event Ticketing Service unless `TICKETING_API_URL` names a real one.
 */
export async function startSandboxStack(options: {
  env: Record<string, string | undefined>;
  logger: Logger;
  /** The page's port. @default 0 (any free one) */
  port?: number;
  /** The store's URL, SQLite only (`config.sandboxStoreUrl`). @default SANDBOX_STORE_URL (in memory) */
  store?: string;
  compose?: Partial<ComposeOptions>;
}): Promise<SandboxStack> {
  const store = options.store ?? SANDBOX_STORE_URL;
  const sandbox = await startSandbox({
    logger: options.logger.child({ component: 'sandbox' }),
    port: options.port ?? 0,
    // Its messages live with its store: a kept watch's card and thread are still there after a restart.
    keepMessagesIn: keptMessagesPath(store, options.compose?.cwd ?? process.cwd()),
  });
  try {
    const signingSecret = randomBytes(24).toString('hex');
    const config = loadConfig({
      ...options.env,
      // A store of its own, always: never a deployment's Redis or SQLite file (see the README).
      STORE_URL: store,
      SLACK_BOT_TOKEN: `xoxb-sandbox-${randomBytes(8).toString('hex')}`,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_APP_TOKEN: undefined,
      SLACK_API_URL: sandbox.apiUrl,
      // Blank counts as unset here as everywhere: the simulator, and the sandbox's own editors.
      TICKETING_API_URL: options.env.TICKETING_API_URL?.trim() || 'simulator',
      PROMO_EDITORS: options.env.PROMO_EDITORS?.trim() || `UEDITOR01,${EDITORS_GROUP}`,
      // Event page links pasted in the sandbox unfold, as they would with EVENT_PAGE_URL set.
      EVENT_PAGE_URL: options.env.EVENT_PAGE_URL?.trim() || SANDBOX_EVENT_PAGE_URL,
      // Agents can try the MCP server here: on unless turned off.
      MCP_SERVER: options.env.MCP_SERVER?.trim() || 'on',
    });
    const bot = await composeBot(config, {
      logger: options.logger,
      // Nothing named a service: the simulator is the default, and the log says so in those words.
      simulatorByDefault: !options.env.TICKETING_API_URL?.trim(),
      ...options.compose,
    });
    const server = await bot.listenForSlack({ port: 0, host: '127.0.0.1' });
    const botPort = (server.address() as AddressInfo).port;
    const mcpUrl = config.mcp.on ? `http://127.0.0.1:${botPort}/mcp` : undefined;
    if (mcpUrl)
      options.logger.info(`MCP server for agents at ${mcpUrl}; type /events mcp token in the page for a token`);
    sandbox.connect(`http://127.0.0.1:${botPort}/slack/events`, signingSecret, {
      unfurlHost: config.eventPageUrl ? eventLinks(config.eventPageUrl).host : undefined,
      // The page shows it, with the command for a token.
      mcpUrl,
    });
    // The simulator's past as the bot's sales history, written while the page opens (a few
    // seconds): a forecast and a sales digest show at once, not after hours of report reads.
    const simulator = bot.simulator;
    const salesHistorySeeded = simulator
      ? bot.work
          .track(seedSalesHistory({ simulator, history: bot.history, now: Date.now(), stopping: bot.work.stopping }))
          .then((seeded) => {
            if (seeded > 0)
              options.logger.info(
                `Seeded the sales history of ${countedWords(seeded, 'demo event')} from the simulator's past`,
              );
            return seeded;
          })
          .catch((error: unknown) => {
            options.logger.warn('The demo sales history could not be seeded', { error });
            return 0;
          })
      : Promise.resolve(0);
    return {
      sandbox,
      bot,
      url: sandbox.url,
      mcpUrl,
      eventLinkPattern: config.eventPageUrl
        ?.replace('{id}', '<event id>')
        .replace('{bareId}', '<event id without evt_>'),
      salesHistorySeeded,
      close: async () => {
        await bot.close();
        await sandbox.close();
      },
    };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}
