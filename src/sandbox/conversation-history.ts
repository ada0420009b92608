/** A channel message as `conversations.history` lists it. */
export interface HistoryMessage {
  ts: string;
  text: unknown;
  metadata?: unknown;
  /** The thread it replies in, if any. */
  threadTs?: string | undefined;
  /** A reply also sent to the channel (`reply_broadcast`). */
  broadcast?: boolean | undefined;
}

const listed = (message: HistoryMessage, args: Record<string, unknown>) => ({
  type: 'message',
  ts: message.ts,
  text: message.text,
  ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
  ...(args.include_all_metadata && message.metadata ? { metadata: message.metadata } : {}),
});

/**
 * `conversations.history` as Slack answers it: the channel's messages newest first, from `oldest`
 * on, with their metadata only when `include_all_metadata` asks for it.
 */
export function conversationHistory(newestFirst: readonly HistoryMessage[], args: Record<string, unknown>) {
  const oldest = Number(args.oldest ?? 0);
  // Replies stay in their thread, unless they were also sent to the channel.
  const messages = newestFirst
    .filter((message) => Number(message.ts) >= oldest && (!message.threadTs || message.broadcast))
    .map((message) => listed(message, args));
  return { ok: true, messages, has_more: false };
}

/** `conversations.replies`: the thread's parent, then its replies oldest first (one page). */
export function conversationReplies(newestFirst: readonly HistoryMessage[], args: Record<string, unknown>) {
  const ts = String(args.ts ?? '');
  const parent = newestFirst.find((message) => message.ts === ts);
  if (!parent) return { ok: false, error: 'thread_not_found' };
  const replies = newestFirst.filter((message) => message.threadTs === ts).reverse();
  return { ok: true, messages: [parent, ...replies].map((message) => listed(message, args)), has_more: false };
}
