import type { RespondFn, webApi } from '@slack/bolt';
import {
  mcpOffMessage,
  mcpRevokedMessage,
  mcpTokenMessage,
  mcpTokenRefusedMessage,
} from '../../../render/mcp-token-blocks.js';
import type { SlackDeps } from '../../deps/slack-deps.js';
import { respondPrivately } from '../../replies/respond-safely.js';

/**
 * `/events mcp token` and `/events mcp revoke`: the person's own MCP token, answered privately
 * (shown once, kept only as a hash). Only members of the organization get one: a guest, someone
 * of another organization or someone Slack could not say of is told why not.
 */
export async function handleMcpCommand(
  deps: SlackDeps,
  kind: 'mcp-token' | 'mcp-revoke',
  asker: { respond: RespondFn; client: webApi.WebClient; userId: string },
): Promise<void> {
  const { respond, client, userId } = asker;
  const tokens = deps.mcpTokens;
  if (!tokens) {
    await respondPrivately(respond, mcpOffMessage(), deps.logger);
    return;
  }
  if (kind === 'mcp-revoke') {
    const revoked = await tokens.revoke(userId);
    deps.logger.info('MCP token revoked', { user: userId, revoked });
    await respondPrivately(respond, mcpRevokedMessage(revoked), deps.logger);
    return;
  }
  const person = await deps.audience.person(userId, client);
  if (person.kind !== 'member') {
    deps.logger.info('Refused an MCP token', { user: userId, person: person.kind });
    await respondPrivately(respond, mcpTokenRefusedMessage(person), deps.logger);
    return;
  }
  const issued = await tokens.issue(userId);
  deps.logger.info('MCP token made', { user: userId });
  await respondPrivately(respond, mcpTokenMessage(issued), deps.logger);
}
