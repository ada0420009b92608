import type { Person } from '../figures/may-show-figures.js';
import {
  type Block,
  context,
  header,
  mrkdwnSection,
  plainMessage,
  type SlackMessage,
  warningMessage,
} from './block-kit.js';
import { code, md, readerInstant } from './mrkdwn.js';

/** A person's MCP token as App Home lists it (never the token). */
export interface McpTokenListing {
  createdAt: number;
  expiresAt: number;
  lastUsedAt?: number | undefined;
}

/** `/events mcp token`: the token, shown this once and to the person alone, and how to use it. */
export function mcpTokenMessage(input: { token: string; expiresAt: number }): SlackMessage {
  return plainMessage(
    md`:key: Your MCP token, shown this once and only to you: ${code(input.token, 120)}
Give it to your agent as \`Authorization: Bearer <token>\` for the eventops MCP server (\`/mcp\`). It acts as you: the figures you may see, your report limit, your promo confirmations. It expires ${readerInstant(input.expiresAt)}; a new \`/events mcp token\` replaces it, \`/events mcp revoke\` ends it at once.`,
  );
}

/** No token for a guest, someone of another organization, or someone Slack could not say of. */
export function mcpTokenRefusedMessage(person: Exclude<Person, { kind: 'member' }>): SlackMessage {
  const why =
    person.kind === 'guest'
      ? md`guests of the workspace get no MCP token`
      : person.kind === 'stranger'
        ? md`people of another organization get no MCP token`
        : md`Slack could not say who you are, so no MCP token was made; try again in a minute`;
  return warningMessage(md`No token: ${why}.`);
}

/** `/events mcp revoke`: ended, or there was none. */
export function mcpRevokedMessage(revoked: boolean): SlackMessage {
  return plainMessage(
    revoked
      ? md`Your MCP token is revoked: agents using it are refused from now on, on every replica.`
      : md`You had no MCP token; nothing to revoke.`,
  );
}

/** The MCP server is off here (`MCP_SERVER`). */
export function mcpOffMessage(): SlackMessage {
  return plainMessage(md`The MCP server is off in this workspace, so there are no MCP tokens here.`);
}

/** App Home's line about the person's MCP token: when it was made, last used, and expires. */
export function mcpTokenHomeBlocks(listing: McpTokenListing | undefined): Block[] {
  const line = listing
    ? md`Made ${readerInstant(listing.createdAt)}, last used ${listing.lastUsedAt === undefined ? md`never` : readerInstant(listing.lastUsedAt)}, expires ${readerInstant(listing.expiresAt)}. \`/events mcp revoke\` ends it.`
    : md`None. \`/events mcp token\` makes one for your AI agent.`;
  return [header(md`Your MCP token`), mrkdwnSection(line), context(md`The token itself is never shown again.`)];
}
