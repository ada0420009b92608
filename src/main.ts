import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startSimulator } from './simulator/server.js';

/** Composition root: the only place that reads `process.env` and wires process-wide things. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
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

  const stops: (() => Promise<void>)[] = [];
  if (!config.ticketing.apiUrl) {
    const simulator = await startSimulator({
      orgLimit: config.ticketing.orgLimit,
      reportLimit: config.ticketing.reportLimit,
    });
    stops.push(() => simulator.close());
    logger.info('No TICKETING_API_URL: started the built-in Event Ticketing simulator', { url: simulator.url });
    process.stdout.write(
      [
        `Event Ticketing simulator listening on ${simulator.url}`,
        `API key: ${simulator.apiKeys[0]}`,
        `Try: curl -H 'Service-Api-Key: ${simulator.apiKeys[0]}' '${simulator.url}/v1/events?limit=2'`,
        '',
      ].join('\n'),
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('Shutting down', { signal });
    await Promise.allSettled(stops.map((fn) => fn()));
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

await main();
