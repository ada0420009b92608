import type { Simulator } from './server.js';

/** The Event Ticketing Service the bot talks to, and what closing it takes. */
export interface TicketingService {
  apiUrl: string;
  apiKey: string;
  /** The built-in simulator, when it is the service. */
  simulator: Simulator | undefined;
  close(): Promise<void>;
}

/**
 * The configured service, or the demo one when TICKETING_API_URL is `simulator`: the simulator is
 * loaded only then, so a deployment never holds it. `simulatorByDefault`: the variable was not set at all
 * (the sandbox), which the log says.
 */
export async function buildTicketingService(
  ticketing: {
    apiUrl: string | undefined;
    apiKey: string | undefined;
    orgLimit: { limit: number; windowMs: number };
    reportLimit: { limit: number; windowMs: number };
  },
  options: {
    simulatorByDefault?: boolean | undefined;
    logger: { warn(message: string, fields?: Record<string, unknown>): void };
  },
): Promise<TicketingService> {
  const { apiUrl, apiKey, orgLimit, reportLimit } = ticketing;
  if (apiUrl !== 'simulator') {
    if (!apiUrl || !apiKey) throw new Error('composeBot needs TICKETING_API_URL and TICKETING_API_KEY');
    return { apiUrl, apiKey, simulator: undefined, close: async () => {} };
  }
  const { startSimulator } = await import('./server.js');
  // Sales accumulate, promo codes run down, some events sell out: a watch fires within minutes.
  const simulator = await startSimulator({ orgLimit, reportLimit, motion: 'moving' });
  options.logger.warn(
    options.simulatorByDefault
      ? 'TICKETING_API_URL is not set: the built-in simulator serves demo data (set it to a real service to use one)'
      : 'TICKETING_API_URL=simulator: serving demo data from the built-in simulator',
    { url: simulator.url },
  );
  return { apiUrl: simulator.url, apiKey: simulator.apiKeys[0] as string, simulator, close: () => simulator.close() };
}
