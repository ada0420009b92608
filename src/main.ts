import { composeBot } from './compose.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { startSimulatorFromConfig } from './simulator/cli.js';

/** Without Slack credentials: the simulator alone, so the API can be tried with curl or the CLI. */
async function startDemo(config: Config, logger: Logger): Promise<() => Promise<void>> {
  const simulator = await startSimulatorFromConfig(config, (text) => process.stdout.write(text));
  process.stdout.write(
    'Set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN) to run the bot; see the README.\n',
  );
  logger.info('No SLACK_BOT_TOKEN: running the Event Ticketing simulator only', { url: simulator.url });
  return () => simulator.close();
}

/** Composition root: the only place that reads `process.env` and wires process-wide things. */
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
    secrets: [config.ticketing.apiKey, config.slack.botToken, config.slack.appToken, config.slack.signingSecret],
  });
  process.on('unhandledRejection', (reason) => logger.error('Unhandled rejection', { error: reason }));

  // Handlers first: a signal during startup (or the digest catch-up) still shuts down cleanly.
  let stop: () => Promise<void> = async () => {};
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('Shutting down', { signal });
    await stop().catch((error: unknown) => logger.error('Shutdown failed', { error }));
    logger.info('Stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  if (!config.slack.botToken) {
    stop = await startDemo(config, logger);
    return;
  }
  const bot = await composeBot(config, { logger });
  stop = () => bot.close();
  if (config.slack.appToken) {
    await bot.app.start();
    logger.info('eventops is running in Socket Mode');
  } else {
    await bot.app.start(config.port);
    logger.info('eventops is listening for Slack on POST /slack/events', { port: config.port });
  }
  bot.catalog.start();
  if (!stopping) await bot.work.track(bot.digests.start());
}

await main();
