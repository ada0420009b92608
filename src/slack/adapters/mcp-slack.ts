import type { webApi } from '@slack/bolt';
import { shownOrNone } from '../../figures/may-show-figures.js';
import type { McpSlack } from '../../mcp/mcp-deps.js';
import type { PromoNow } from '../../render/promo-blocks.js';
import { privateReader } from '../deps/figures-reader.js';
import { personZone } from '../deps/person-zone.js';
import type { SlackDeps } from '../deps/slack-deps.js';
import { promoDeps, proposalMessage } from './promo-context.js';

/**
 * The MCP server's Slack side: who a person is (the figures rule's fact), their zone, whether they
 * edit promo codes, and the promo confirmation, sent to their DM as `/events promo` shows it (the
 * same single-use Confirm button, handled by the same listener).
 */
export function mcpSlack(deps: SlackDeps, client: webApi.WebClient): McpSlack {
  return {
    personOf: (userId) => deps.audience.person(userId, client),
    zoneOf: (userId) => personZone(client, userId),
    isEditor: (userId) => promoDeps(deps, client).isEditor(userId),
    pending: deps.pending,
    async sendPromoConfirmation(userId, result) {
      // The code's quantity now and its redemptions are figures: a guest editor sees none.
      const reader = await privateReader(deps.audience, userId);
      const mayShow = (figures: PromoNow) => shownOrNone(figures, reader, deps.figuresPolicy);
      const message = proposalMessage(deps, result, result.event.id, mayShow);
      await client.chat.postMessage({ channel: userId, text: message.text, blocks: message.blocks });
    },
  };
}
