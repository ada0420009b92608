import { BOT_ID, type SandboxState } from './sandbox-state.js';

type Json = Record<string, unknown>;

const chunksOf = (args: Json): unknown[] => (Array.isArray(args.chunks) ? args.chunks : []);

/**
 * Why Slack would refuse a `chat.startStream`: no `thread_ts` (@slack/web-api's
 * `ChatStartStreamArguments` requires it; Slack streams only replies), or outside a DM no
 * `recipient_user_id` and `recipient_team_id`.
 */
export function streamStartRefusal(args: Json): string | undefined {
  if (typeof args.thread_ts !== 'string' || args.thread_ts === '') return 'invalid_arguments';
  const inDm = String(args.channel).startsWith('D');
  if (!inDm && (typeof args.recipient_user_id !== 'string' || typeof args.recipient_team_id !== 'string'))
    return 'invalid_arguments';
  return undefined;
}

/**
 * `chat.startStream`, `chat.appendStream` and `chat.stopStream`, as Slack answers them: a bot
 * message that gathers its chunks while it streams (the page draws its plan and steps) and ends
 * with the blocks the stop carries. Undefined for any other method.
 */
export function sandboxStreamMethod(state: SandboxState, method: string, args: Json): Json | undefined {
  switch (method) {
    case 'chat.startStream': {
      const refusal = streamStartRefusal(args);
      if (refusal) return { ok: false, error: refusal };
      const channel = state.channelFor(String(args.channel));
      if (!channel) return { ok: false, error: 'channel_not_found' };
      const message = state.post({
        channel: channel.id,
        author: BOT_ID,
        text: '',
        blocks: [],
        threadTs: String(args.thread_ts),
        stream: { chunks: chunksOf(args), streaming: true },
      });
      return { ok: true, channel: message.channel, ts: message.ts };
    }
    case 'chat.appendStream':
    case 'chat.stopStream': {
      const message = state.find(String(args.channel), String(args.ts));
      if (!message) return { ok: false, error: 'message_not_found' };
      if (!message.stream?.streaming) return { ok: false, error: 'message_not_in_streaming_state' };
      message.stream.chunks.push(...chunksOf(args));
      if (method === 'chat.stopStream') {
        message.stream.streaming = false;
        if (Array.isArray(args.blocks)) message.blocks = args.blocks;
      }
      state.touch();
      return { ok: true, channel: message.channel, ts: message.ts };
    }
    default:
      return undefined;
  }
}
