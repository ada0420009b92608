import type { Bot } from './compose.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import type { SandboxStack } from './sandbox/sandbox-stack.js';
import { redisSecrets } from './store/redis-url.js';

/**
 * Without Slack credentials: the whole bot in a local Slack sandbox in the browser, against the
 * built-in simulator unless TICKETING_API_URL names a real service.
 */
async function startLocalSandbox(
  config: Config,
  logger: Logger,
  env: Record<string, string | undefined>,
): Promise<SandboxStack> {
  // The first line says what runs and on what, before anything opens.
  logger.info(
    'No SLACK_ variable is set: starting the local Slack sandbox on a store of its own, in memory (lost at exit)',
    env.STORE_URL?.trim() ? { storeUrl: 'set but not used by the sandbox' } : {},
  );
  // The sandbox and its page load only in the sandbox: a workspace deployment never holds them.
  const { startSandboxStack } = await import('./sandbox/sandbox-stack.js');
  const stack = await startSandboxStack({ env, logger, port: config.port });
  const service =
    config.ticketing.apiUrl && config.ticketing.apiUrl !== 'simulator'
      ? config.ticketing.apiUrl
      : 'the built-in simulator (demo data)';
  process.stdout.write(
    [
      `eventops is running in a local Slack sandbox: open ${stack.url}`,
      `Events come from ${service}. Set SLACK_BOT_TOKEN (see the README) to run it in a real workspace.`,
      '',
    ].join('\n'),
  );
  return stack;
}

/** What runs in the background once the bot listens: the catalog refresh, the watches' checks and the digests' catch-up. */
async function startBackgroundWork(bot: Bot): Promise<void> {
  bot.catalog.start();
  bot.watchScheduler.start();
  await bot.work.track(bot.digests.start());
}

/** Composition root: reads the bot's configuration from `process.env` and wires process-wide things (the CLIs read their own). */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example and the README's configuration table.\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({
    level: config.logLevel,
    secrets: [
      config.ticketing.apiKey,
      config.slack.botToken,
      config.slack.appToken,
      config.slack.signingSecret,
      ...redisSecrets(config.storeUrl),
    ],
  });
  process.on('unhandledRejection', (reason) => logger.error('Unhandled rejection', { error: reason }));

  // Handlers first: a signal during startup (or the digest catch-up) still shuts down cleanly.
  let stop: () => Promise<void> = async () => {};
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('Shutting down', { signal });
    // Work gets 30 s to drain and each connection 5 s to close; past a minute the process goes anyway.
    setTimeout(() => {
      logger.error('Shutdown took over a minute; exiting without it');
      process.exit(1);
    }, 60_000).unref();
    await stop().catch((error: unknown) => logger.error('Shutdown failed', { error }));
    logger.info('Stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  if (config.mode === 'sandbox') {
    const stack = await startLocalSandbox(config, logger, process.env);
    stop = () => stack.close();
    if (!stopping) await startBackgroundWork(stack.bot);
    return;
  }
  // Loaded once the configuration holds: a start it refuses says why without loading the bot first.
  const { composeBot } = await import('./compose.js');
  let bot: Bot;
  try {
    bot = await composeBot(config, { logger, healthPort: config.healthPort });
  } catch (error) {
    const { isStoreError } = await import('./store/key-value-store.js');
    if (!isStoreError(error)) throw error;
    // The store it names cannot be used (Redis refused or is not there): the operator's sentence on
    // a line of its own, rather than at the head of a stack trace as long as the checkout's path
    // makes it. Written at exit, after the log's exit listener (added with the logger) has flushed
    // the lines it still held.
    logger.error('Could not open the store', { error });
    process.once('exit', () => process.stderr.write(`${error.message}\n`));
    process.exit(1);
  }
  stop = () => bot.close();
  if (config.slack.appToken) {
    await bot.app.start();
    logger.info('eventops is running in Socket Mode');
  } else {
    const server = (await bot.app.start(config.host ? { port: config.port, host: config.host } : config.port)) as
      | { address?: () => unknown }
      | undefined;
    const bound = server?.address?.() as { port?: number } | null | undefined;
    logger.info('eventops is listening for Slack on POST /slack/events', { port: bound?.port ?? config.port });
  }
  if (!stopping) await startBackgroundWork(bot);
}

await main();
