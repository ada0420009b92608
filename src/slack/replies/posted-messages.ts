import type { webApi } from '@slack/bolt';
import { type Logger, silentLogger } from '../../logger.js';
import { NamedError } from '../../named-error.js';
import type { Metrics } from '../../observability/metrics.js';
import type { SlackMessage } from '../../render/block-kit.js';
import { countSlackError } from './slack-errors.js';
import { sendWithoutRichBlocksIfRefused } from './without-rich-blocks.js';

/** Messages asked for in one page of history or of a thread. */
const PAGE = 200;
/** Pages read at most in one search: 2,000 messages since the time searched from. */
const MAX_PAGES = 10;

/** What eventops puts in a message's metadata to find it again after a crash. */
export interface MessageMetadata {
  event_type: string;
  event_payload: Readonly<Record<string, string | number>>;
}

type HistoryMessage = NonNullable<webApi.ConversationsHistoryResponse['messages']>[number];

/** Whether a message carries `metadata`: its type and every field of its payload. */
export function carries(message: Pick<HistoryMessage, 'metadata'>, metadata: MessageMetadata): boolean {
  const payload = message.metadata?.event_payload as Record<string, unknown> | undefined;
  return (
    message.metadata?.event_type === metadata.event_type &&
    Object.entries(metadata.event_payload).every(([field, value]) => payload?.[field] === value)
  );
}

/** Runs a Slack call; a failure is counted by Slack's error code and thrown on. */
export function counted<T>(metrics: Metrics | undefined, call: string, request: Promise<T>): Promise<T> {
  return request.catch((error: unknown) => {
    countSlackError(metrics, call, error);
    throw error;
  });
}

/**
 * Posts a message (counted); returns its ts. A message whose charts or tables Slack refuses is
 * posted again without them, saying so (logged once per `kind`).
 */
export async function postCounted(
  client: webApi.WebClient,
  metrics: Metrics | undefined,
  args: {
    channel: string;
    message: SlackMessage;
    metadata?: MessageMetadata;
    thread?: { ts: string; broadcast: boolean };
  },
  refused: { logger: Logger; kind: string } = { logger: silentLogger, kind: 'message' },
): Promise<string | undefined> {
  const { thread } = args;
  const post = (message: SlackMessage) => {
    const base = {
      channel: args.channel,
      text: message.text,
      blocks: message.blocks,
      ...(args.metadata ? { metadata: args.metadata } : {}),
    };
    return counted(
      metrics,
      'chat.postMessage',
      thread
        ? client.chat.postMessage({ ...base, thread_ts: thread.ts, reply_broadcast: thread.broadcast })
        : client.chat.postMessage(base),
    );
  };
  const posted = await sendWithoutRichBlocksIfRefused(args.message, post, refused.logger, refused.kind);
  return posted.ts;
}

/** Edits a message (counted), as `postCounted` posts one: without charts and tables if Slack refuses them. */
export async function updateCounted(
  client: webApi.WebClient,
  metrics: Metrics | undefined,
  args: { channel: string; ts: string; message: SlackMessage },
  refused: { logger: Logger; kind: string } = { logger: silentLogger, kind: 'message' },
): Promise<void> {
  await sendWithoutRichBlocksIfRefused(
    args.message,
    (message) =>
      counted(
        metrics,
        'chat.update',
        client.chat.update({ channel: args.channel, ts: args.ts, text: message.text, blocks: message.blocks }),
      ),
    refused.logger,
    refused.kind,
  );
}

/**
 * A person's DM with the bot by its own id (`D...`), for a channel given as a user id: a post may
 * name the user id, but edits, thread replies and history need the conversation's id.
 * `conversations.open` returns the existing DM (scope `im:write`); a person who left gets
 * `user_not_found` or `user_disabled`. Opened once a person and process (a DM's id never changes).
 */
export function dmConversations(
  client: () => webApi.WebClient,
  metrics: Metrics | undefined,
): (channel: string) => Promise<string> {
  const dms = new Map<string, string>();
  return async (channel) => {
    if (!/^[UW][A-Z0-9]+$/.test(channel)) return channel;
    const known = dms.get(channel);
    if (known) return known;
    const opened = await counted(metrics, 'conversations.open', client().conversations.open({ users: channel }));
    const id = opened.channel?.id;
    if (!id) throw new Error('Slack opened the DM without naming it');
    dms.set(channel, id);
    return id;
  };
}

/** Searched further than a search reads: whether the post went out cannot be told. */
export class SearchTooLong extends NamedError {
  constructor(what: string) {
    super(`Could not tell whether the post went out: ${what} goes on past ${MAX_PAGES * PAGE} messages`);
  }
}

/** The next page's cursor, or undefined at the end; throws when the search would go on too long or loop. */
function nextCursor(cursor: string | undefined, seen: Set<string>, what: string): string | undefined {
  if (!cursor) return undefined;
  if (seen.has(cursor) || seen.size + 1 >= MAX_PAGES) throw new SearchTooLong(what);
  seen.add(cursor);
  return cursor;
}

/**
 * The first message of a conversation's history since `sinceMs` that carries `metadata`, page by
 * page: whether a post went out before a crash, and which one. Past 2,000 messages it throws
 * (cannot tell) rather than answer "not posted" and have the caller post again.
 */
export async function findPosted(
  client: webApi.WebClient,
  conversation: string,
  metadata: MessageMetadata,
  sinceMs: number,
): Promise<HistoryMessage | undefined> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const history = await client.conversations.history({
      channel: conversation,
      oldest: String(Math.max(0, sinceMs) / 1000),
      include_all_metadata: true,
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
    });
    const found = (history.messages ?? []).find((message) => carries(message, metadata));
    if (found) return found;
    cursor = nextCursor(history.response_metadata?.next_cursor, seen, 'the history');
    if (!cursor) return undefined;
  }
}

/** Whether a thread holds a reply carrying `metadata`, page by page (past 2,000 messages it throws). */
export async function repliedInThread(
  client: webApi.WebClient,
  conversation: string,
  threadTs: string,
  metadata: MessageMetadata,
): Promise<boolean> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const replies = await client.conversations.replies({
      channel: conversation,
      ts: threadTs,
      include_all_metadata: true,
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
    });
    if ((replies.messages ?? []).some((message) => carries(message as HistoryMessage, metadata))) return true;
    cursor = nextCursor(replies.response_metadata?.next_cursor, seen, 'the thread');
    if (!cursor) return false;
  }
}
