import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LatePart } from '../lifecycle/late-part.js';
import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { Clock } from '../time/clock.js';
import type { McpDeps, McpSlack } from './mcp-deps.js';
import { mcpRoute } from './mcp-route.js';
import { McpTokens } from './mcp-tokens.js';

export interface BuiltMcp {
  tokens: McpTokens;
  /** `/mcp`, for whichever server answers HTTP. */
  route: (req: IncomingMessage, res: ServerResponse) => void;
  /** The Slack side, given once the app is built. */
  slack: LatePart<McpSlack>;
}

/**
 * The MCP server for agents: people's tokens in the shared store, and `/mcp` over the same use
 * cases, report queue, budget and figures rule as the Slack listeners. A person's API calls wait
 * as theirs would in Slack (25 s, interactive priority).
 */
export function buildMcp(
  options: Omit<McpDeps, 'slack' | 'interactive'> & {
    store: KeyValueStore;
    tokenTtlMs: number;
    clock: Clock;
    logger: Logger;
    track<T>(work: Promise<T>): Promise<T>;
  },
): BuiltMcp {
  const tokens = new McpTokens({ store: options.store, clock: options.clock, ttlMs: options.tokenTtlMs });
  const slack = new LatePart<McpSlack>("The MCP server's Slack side");
  const route = mcpRoute({
    ...options,
    tokens,
    slack: () => slack.get(),
    interactive: () => ({ signal: AbortSignal.timeout(25_000), priority: 'interactive', maxRateLimitWaitMs: 10_000 }),
  });
  return { tokens, route, slack };
}

/**
 * Socket Mode has no HTTP receiver: `/mcp` gets a port of its own (`MCP_PORT`), on `host` or every
 * interface. Its close stops it.
 */
export async function startMcpPort(
  route: BuiltMcp['route'],
  options: { port: number; host: string | undefined; logger: Logger },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://mcp').pathname === '/mcp') route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if (options.host) server.listen(options.port, options.host, resolve);
    else server.listen(options.port, resolve);
  });
  const { port } = server.address() as AddressInfo;
  options.logger.info('MCP server listening', { port });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
