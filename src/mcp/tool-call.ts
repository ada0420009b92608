import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { isTicketingError, RateLimitedError, TooManyReportsWaitingError } from '../ticketing/errors.js';
import { takeToolCall } from './call-limit.js';
import type { McpDeps } from './mcp-deps.js';
import { plain } from './tool-texts.js';

/** A tool's answer, with the event it was about for the audit. */
export type Answer = CallToolResult & { eventId?: string | undefined };

export const answer = (text: string, structured?: Record<string, unknown>, eventId?: string): Answer => ({
  content: [{ type: 'text', text }],
  ...(structured ? { structuredContent: structured } : {}),
  eventId,
});

export const toolError = (text: string, eventId?: string): Answer => ({
  content: [{ type: 'text', text }],
  isError: true,
  eventId,
});

/** A failure in words an agent can pass on (never a stack, never outside markup). */
export function errorWords(error: unknown): string {
  if (error instanceof RateLimitedError)
    return `The ticketing service's limit is reached; try again in ${Math.ceil(error.retryAfterMs / 1000)} s.`;
  if (error instanceof TooManyReportsWaitingError)
    return `You already have ${error.limit} reports waiting (${error.waiting.map((each) => plain(each.label ?? each.eventId, 80)).join(', ')}); wait for one to arrive. Nothing was queued.`;
  if (isTicketingError(error)) return plain(error.message, 300);
  return 'Something went wrong; nothing was changed. Try again.';
}

/** Sends progress (a notification the client asked for with a `progressToken`). */
export type Progress = (message: string) => Promise<void>;

/**
 * Wraps a tool's work for `userId`: the call is counted against the person's limit (the next one
 * past it is a tool error), audited with the person and the tool, given a way to send progress,
 * and a failure is answered in words (`isError`), never thrown.
 */
export function toolCall(deps: McpDeps, userId: string) {
  const log = deps.logger.child({ mcp: true, user: userId });
  return <A>(tool: string, work: (args: A, progress: Progress) => Promise<Answer>) =>
    async (args: A, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
      const record = (outcome: 'ok' | 'error' | 'limited', eventId?: string) =>
        deps.activity
          .recordToolCall({ at: new Date(deps.clock.now()).toISOString(), userId, tool, outcome, eventId })
          .catch((error: unknown) => log.error('Could not audit an MCP tool call', { error, tool }));
      if (!(await takeToolCall(deps.store, userId, deps.callsPerPerson, deps.clock.now()))) {
        await record('limited');
        return toolError(
          `Too many tool calls: at most ${deps.callsPerPerson.limit} every ${deps.callsPerPerson.windowMs / 1000} s per person. Try again shortly.`,
        );
      }
      const token = extra._meta?.progressToken;
      let step = 0;
      const progress = async (message: string) => {
        if (token === undefined) return;
        step += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: step, message },
          })
          .catch(() => undefined);
      };
      let result: Answer;
      try {
        result = await work(args, progress);
      } catch (error) {
        log.info('An MCP tool call failed', { tool, error });
        result = toolError(errorWords(error));
      }
      const { eventId, ...content } = result;
      await record(content.isError ? 'error' : 'ok', eventId);
      return content;
    };
}
