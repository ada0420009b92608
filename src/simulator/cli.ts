import { type Config, ConfigError, loadConfig, withoutSlack } from '../config.js';
import { type Simulator, startSimulator } from './server.js';

/** Starts the simulator with the configured limits and prints how to reach it. */
export async function startSimulatorFromConfig(config: Config, write: (text: string) => void): Promise<Simulator> {
  const simulator = await startSimulator({
    orgLimit: config.ticketing.orgLimit,
    reportLimit: config.ticketing.reportLimit,
  });
  write(
    [
      `Event Ticketing simulator listening on ${simulator.url}`,
      `API key: ${simulator.apiKeys[0]}`,
      `Try: curl -H 'Service-Api-Key: ${simulator.apiKeys[0]}' '${simulator.url}/v1/events?limit=2'`,
      '',
    ].join('\n'),
  );
  return simulator;
}

/** `npm run simulator`: the simulator alone, until SIGINT or SIGTERM. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(withoutSlack(process.env));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const simulator = await startSimulatorFromConfig(config, (text) => process.stdout.write(text));
  const stop = () => void simulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
