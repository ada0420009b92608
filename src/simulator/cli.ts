import { z } from 'zod';
import { parseRateLimit } from '../ticketing/rate-limit.js';
import { type Simulator, startSimulator } from './server.js';

/** The simulator's own settings: the two budgets, read from the variables the bot reads them from. */
export interface SimulatorSettings {
  orgLimit: { limit: number; windowMs: number };
  reportLimit: { limit: number; windowMs: number };
}

/** `<requests>/<window>` as the bot's configuration writes it: `180/60s`, `3/1m`, `30/500ms`. */
const rateLimit = (example: string, fallback: SimulatorSettings['orgLimit']) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z
      .string()
      .transform((text, ctx) => {
        const parsed = parseRateLimit(text);
        if (!parsed) {
          ctx.addIssue({ code: 'custom', message: `expected <requests>/<window> such as "${example}", got "${text}"` });
          return z.NEVER;
        }
        return parsed;
      })
      .default(fallback),
  );

const schema = z.object({
  TICKETING_ORG_LIMIT: rateLimit('180/60s', { limit: 180, windowMs: 60_000 }),
  TICKETING_REPORT_LIMIT: rateLimit('3/60s', { limit: 3, windowMs: 60_000 }),
});

export class SimulatorEnvError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`Invalid simulator configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'SimulatorEnvError';
  }
}

/**
 * Reads the only variables the simulator uses, `TICKETING_ORG_LIMIT` and `TICKETING_REPORT_LIMIT`
 * (the bot's defaults: 180/60s and 3/60s); every other variable, Slack's included, is ignored.
 * Throws `SimulatorEnvError` naming each bad one.
 */
export function readSimulatorEnv(env: Record<string, string | undefined>): SimulatorSettings {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new SimulatorEnvError(
      parsed.error.issues.map((issue) => ({ variable: String(issue.path[0]), message: issue.message })),
    );
  }
  return { orgLimit: parsed.data.TICKETING_ORG_LIMIT, reportLimit: parsed.data.TICKETING_REPORT_LIMIT };
}

/** Starts the simulator with these limits and prints how to reach it. */
export async function startSimulatorWith(
  settings: SimulatorSettings,
  write: (text: string) => void,
): Promise<Simulator> {
  // Sales accumulate and promo codes run down as in the bot's built-in simulator.
  const simulator = await startSimulator({
    orgLimit: settings.orgLimit,
    reportLimit: settings.reportLimit,
    motion: 'moving',
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

/** `npm run simulator`: the simulator alone, until SIGINT or SIGTERM; exit 2 on a bad variable. */
async function main(): Promise<void> {
  let settings: SimulatorSettings;
  try {
    settings = readSimulatorEnv(process.env);
  } catch (error) {
    if (!(error instanceof SimulatorEnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const simulator = await startSimulatorWith(settings, (text) => process.stdout.write(text));
  const stop = () => void simulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
