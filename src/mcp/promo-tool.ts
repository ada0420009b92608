import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ProposeResult } from '../promo/promo-changes.js';
import { parsePromoRef } from '../promo/promo-codes.js';
import { promoCodeSources, requestPromoChange } from '../promo/request-promo-change.js';
import { EVENT, targetOf } from './event-tools.js';
import type { McpDeps } from './mcp-deps.js';
import { answer, errorWords, type toolCall, toolError } from './tool-call.js';
import { eventLines, plain } from './tool-texts.js';

/**
 * `request_promo_change`: the same use case as `/events promo`, and the same single-use
 * confirmation, sent to the person's DM. It writes nothing: only their click on Confirm does, once.
 */
export function registerPromoTool(
  server: McpServer,
  deps: McpDeps,
  userId: string,
  run: ReturnType<typeof toolCall>,
): void {
  const log = deps.logger.child({ mcp: true, user: userId });
  server.registerTool(
    'request_promo_change',
    {
      title: 'Request a promo code change',
      description:
        "Asks to set a promo code's quantity. It changes nothing: it sends the person, in Slack, the same single-use confirmation `/events promo` gives, and only their click on Confirm there writes the change (once). Only promo editors may ask.",
      inputSchema: {
        event: EVENT,
        code: z.string().trim().min(1).max(64).describe('The promo code (EARLYBIRD) or its id (promo_...)'),
        quantity: z.number().int().min(0).max(1_000_000).describe('The new quantity'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    run('request_promo_change', async (args: { event: string; code: string; quantity: number }, progress) => {
      const promo = parsePromoRef(args.code);
      if ('problem' in promo) return toolError(`Promo code: ${plain(promo.problem, 200)}. Nothing was asked.`);
      const slack = deps.slack();
      const outcome = await requestPromoChange(
        {
          ticketing: deps.ticketing,
          events: deps.catalog,
          catalog: deps.catalog,
          pending: slack.pending,
          record: deps.reports,
          activity: deps.activity,
          isEditor: (id) => slack.isEditor(id),
          interactive: deps.interactive,
          clock: deps.clock,
          logger: log,
          sources: promoCodeSources(deps.reports, deps.promoCodes, userId),
        },
        // The confirmation is the person's alone: their DM with the bot.
        { userId, channelId: userId, target: targetOf(args.event), promo, quantity: args.quantity },
        () => progress('Reading the event report for the code'),
      );
      switch (outcome.kind) {
        case 'proposed': {
          const { result } = outcome;
          if (result.kind !== 'confirm') return toolError(proposalWords(result), outcome.eventId);
          await slack.sendPromoConfirmation(userId, result);
          return answer(
            `Sent you a confirmation in Slack (a DM from eventops) to set ${plain(result.change.code ?? result.change.promoId, 64)} of ${plain(result.event.name ?? result.event.id)} to ${result.change.quantity}. Nothing is changed until you click Confirm there; it is valid once, for ${Math.round(slack.pending.ttlMs / 60_000)} minutes.`,
            { sent: true, eventId: result.event.id, quantity: result.change.quantity, written: false },
            outcome.eventId,
          );
        }
        case 'not-editor':
          return toolError('Only promo editors may change promo codes. Nothing was asked.');
        case 'none':
        case 'choices':
          return toolError(
            outcome.kind === 'none'
              ? `No event matches "${plain(args.event)}".${outcome.closest?.length ? ` Did you mean:\n${eventLines(outcome.closest)}` : ''}`
              : `Several events match "${plain(args.event)}"; name one by its id:\n${eventLines(outcome.events)}`,
          );
        case 'code-left-out':
          return toolError(
            `"${plain(outcome.words)}" looks like the event ${plain(outcome.event.name ?? outcome.event.id)} with no code. Its known codes: ${outcome.codes.map((each) => plain(each, 64)).join(', ') || 'none yet'}.`,
          );
        case 'cancelled':
          return toolError(
            `${plain(outcome.event.name ?? outcome.event.id)} is cancelled: its promo codes are not changed.`,
          );
        case 'code-did-you-mean':
          return toolError(
            `No code ${plain(args.code, 64)}; did you mean ${outcome.close.map((each) => plain(each, 64)).join(' or ')}? Nothing was asked.`,
            outcome.event.id,
          );
        case 'code-not-named':
          return toolError(
            `The event's report names no promo code ${plain(outcome.code, 64)}. Known: ${outcome.known.map((each) => plain(each, 64)).join(', ') || 'none'}.`,
          );
        case 'lookup-failed':
        case 'code-lookup-failed':
          return toolError(`${errorWords(outcome.error)} Nothing was asked.`);
      }
    }),
  );
}

/** Why no confirmation was sent, in words. */
function proposalWords(result: Exclude<ProposeResult, { kind: 'confirm' }>): string {
  switch (result.kind) {
    case 'not-editor':
      return 'Only promo editors may change promo codes. Nothing was asked.';
    case 'no-event':
      return 'That event is no longer in the catalog. Nothing was asked.';
    case 'failed':
      return `${errorWords(result.error)} Nothing was asked.`;
  }
}
