/** A channel message as `conversations.history` lists it. */
export interface HistoryMessage {
  ts: string;
  text: unknown;
  metadata?: unknown;
}

/**
 * `conversations.history` as Slack answers it: the channel's messages newest first, from `oldest`
 * on, with their metadata only when `include_all_metadata` asks for it.
 */
export function conversationHistory(newestFirst: readonly HistoryMessage[], args: Record<string, unknown>) {
  const oldest = Number(args.oldest ?? 0);
  const messages = newestFirst
    .filter((message) => Number(message.ts) >= oldest)
    .map((message) => ({
      type: 'message',
      ts: message.ts,
      text: message.text,
      ...(args.include_all_metadata && message.metadata ? { metadata: message.metadata } : {}),
    }));
  return { ok: true, messages, has_more: false };
}
