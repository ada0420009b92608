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

/** Slack's default page, and its largest. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 999;

/** One page of `messages` as Slack pages them: `limit` at a time, the next page named by an opaque cursor. */
function page(messages: readonly ReturnType<typeof listed>[], args: Record<string, unknown>) {
  const limit = Math.min(MAX_LIMIT, Math.max(1, Number(args.limit) || DEFAULT_LIMIT));
  const cursor = typeof args.cursor === 'string' && args.cursor ? args.cursor : undefined;
  const start = cursor
    ? Number(
        Buffer.from(cursor, 'base64url')
          .toString()
          .replace(/^offset:/, ''),
      ) || 0
    : 0;
  const shown = messages.slice(start, start + limit);
  const more = start + limit < messages.length;
  return {
    ok: true,
    messages: shown,
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`offset:${start + limit}`).toString('base64url') : '' },
  };
}

/**
 * `conversations.history` as Slack answers it: the channel's messages newest first, from `oldest`
 * on, with their metadata only when `include_all_metadata` asks for it, a page at a time.
 */
export function conversationHistory(newestFirst: readonly HistoryMessage[], args: Record<string, unknown>) {
  const oldest = Number(args.oldest ?? 0);
  // Replies stay in their thread, unless they were also sent to the channel.
  const messages = newestFirst
    .filter((message) => Number(message.ts) >= oldest && (!message.threadTs || message.broadcast))
    .map((message) => listed(message, args));
  return page(messages, args);
}

/** `conversations.replies`: the thread's parent, then its replies oldest first, a page at a time. */
export function conversationReplies(newestFirst: readonly HistoryMessage[], args: Record<string, unknown>) {
  const ts = String(args.ts ?? '');
  const parent = newestFirst.find((message) => message.ts === ts);
  if (!parent) return { ok: false, error: 'thread_not_found' };
  const replies = newestFirst.filter((message) => message.threadTs === ts).reverse();
  return page(
    [parent, ...replies].map((message) => listed(message, args)),
    args,
  );
}
