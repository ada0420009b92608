import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpDeps } from './mcp-deps.js';
import type { McpTokens } from './mcp-tokens.js';
import { registerTools } from './mcp-tools.js';

/**
 * The SDK, loaded at the first request with a valid token: it takes about a second of CPU to
 * load (its JSON Schema validator, its HTTP adapter), which a bot nobody's agent calls never pays.
 */
let sdk:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/mcp.js'),
        typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      ]
    >
  | undefined;
const loadSdk = () => {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  return sdk;
};

/** The largest request body read (the SDK's default is 4 MB). */
const MAX_BODY_BYTES = 64 * 1024;

/** The bearer token of a request, if it carries one. */
function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,300})$/.exec(header.trim()) : null;
  return match?.[1];
}

/** An answer with a status and nothing else: no body, no hint of why. */
const bare = (res: ServerResponse, status: number) => {
  if (!res.headersSent) res.writeHead(status, { 'content-length': '0' });
  res.end();
};

/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless (any replica answers any request). A
 * request without a person's valid token is answered 401 and nothing else; with one, a server
 * whose tools act as that person answers it, and is closed with it.
 */
export function mcpRoute(
  deps: McpDeps & { tokens: McpTokens; track<T>(work: Promise<T>): Promise<T> },
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void deps.track(
      (async () => {
        const token = bearerOf(req);
        const userId = token ? await deps.tokens.verify(token) : undefined;
        if (!userId) return bare(res, 401);
        // Stateless: no sessions to find on another replica, so no GET stream nor DELETE.
        if (req.method !== 'POST') return bare(res, 405);
        const [{ McpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
        const server = new McpServer({ name: 'eventops', version: '1.0.0' });
        registerTools(server, deps, userId);
        // A tool's arguments are a few words: a larger body is refused (413) before it is read.
        const transport = new StreamableHTTPServerTransport({ maxRequestBodySize: MAX_BODY_BYTES });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
      })().catch((error: unknown) => {
        deps.logger.warn('An MCP request failed', { error });
        bare(res, 503);
      }),
    );
  };
}
