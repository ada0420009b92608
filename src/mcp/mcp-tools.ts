import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerEventTools } from './event-tools.js';
import type { McpDeps } from './mcp-deps.js';
import { registerPromoTool } from './promo-tool.js';
import { toolCall } from './tool-call.js';

/**
 * The tools of one person's MCP session (`userId`: the token's person). Every call is counted
 * against the person's limit, audited with the person and the tool, and answered in words when it
 * fails; figures go through the figures rule about that person, as to a DM.
 */
export function registerTools(server: McpServer, deps: McpDeps, userId: string): void {
  const run = toolCall(deps, userId);
  registerEventTools(server, deps, userId, run);
  registerPromoTool(server, deps, userId, run);
}
