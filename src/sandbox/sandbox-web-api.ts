import type { Logger } from '../logger.js';
import { conversationHistory, conversationReplies } from './conversation-history.js';
import { BOT_ID, EDITORS_GROUP, type SandboxMessage, type SandboxState } from './sandbox-state.js';
import { sandboxStreamMethod } from './sandbox-streams.js';
import { presentDetails, unfurlEntities } from './sandbox-work-objects.js';

type Json = Record<string, unknown>;

export interface SandboxWebApiDeps {
  state: SandboxState;
  /** Where the bot uploads a file's content (`files.getUploadURLExternal`). */
  uploadUrl(fileId: string): string;
  logger: Logger;
}

/** The Web API methods the bot calls, answered from the sandbox's state as Slack would. */
export function sandboxWebApi(deps: SandboxWebApiDeps): (method: string, args: Json) => Json {
  const { state, logger } = deps;

  /** A bot message in the channel `args.channel` names (a person's id means their DM). */
  function postFromBot(args: Json, extra: Partial<SandboxMessage>): SandboxMessage | undefined {
    const channel = state.channelFor(String(args.channel));
    if (!channel) return undefined;
    return state.post({
      ...extra,
      channel: channel.id,
      author: BOT_ID,
      text: String(args.text ?? ''),
      blocks: Array.isArray(args.blocks) ? args.blocks : [],
    });
  }

  return (method, args) => {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          user_id: BOT_ID,
          bot_id: 'BEVENTOPS',
          app_id: 'ASANDBOX',
          team_id: 'TSANDBOX',
          user: 'eventops',
          team: 'Sandbox',
        };
      case 'chat.postMessage': {
        const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
        const message = postFromBot(args, {
          threadTs,
          broadcast: threadTs !== undefined && (args.reply_broadcast === true || args.reply_broadcast === 'true'),
          metadata: args.metadata,
        });
        return message
          ? { ok: true, channel: message.channel, ts: message.ts, message: { text: message.text } }
          : { ok: false, error: 'channel_not_found' };
      }
      case 'chat.update': {
        const message = state.find(String(args.channel), String(args.ts));
        if (!message) return { ok: false, error: 'message_not_found' };
        message.text = String(args.text ?? message.text);
        if (Array.isArray(args.blocks)) message.blocks = args.blocks;
        message.edited = true;
        state.touch();
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'chat.unfurl': {
        const message = state.find(String(args.channel), String(args.ts));
        if (!message) return { ok: false, error: 'cannot_unfurl_message' };
        if (args.metadata !== undefined && !unfurlEntities(message, args.metadata))
          return { ok: false, error: 'invalid_metadata' };
        if (args.unfurls !== undefined)
          message.unfurls = { ...message.unfurls, ...(args.unfurls as SandboxMessage['unfurls']) };
        state.touch();
        return { ok: true };
      }
      case 'entity.presentDetails':
        return presentDetails(state, args);
      case 'chat.postEphemeral': {
        const message = postFromBot(args, { ephemeralFor: String(args.user) });
        return message ? { ok: true, message_ts: message.ts } : { ok: false, error: 'channel_not_found' };
      }
      case 'views.open': {
        const trigger = state.trigger(String(args.trigger_id));
        if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
        const id = state.nextId('V');
        const hash = state.nextHash();
        state.views.set(id, { id, user: trigger.user, kind: 'modal', view: args.view as Json, hash });
        state.touch();
        return { ok: true, view: { ...(args.view as Json), id, hash } };
      }
      case 'views.push': {
        // Onto the stack of the modal the person has open (the trigger came from inside it).
        const trigger = state.trigger(String(args.trigger_id));
        if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
        const under = [...state.views.values()].findLast((view) => view.user === trigger.user && view.kind === 'modal');
        if (!under) return { ok: false, error: 'not_found' };
        const id = state.nextId('V');
        const hash = state.nextHash();
        state.views.set(id, {
          id,
          user: trigger.user,
          kind: 'modal',
          view: args.view as Json,
          hash,
          previous: under.id,
        });
        state.touch();
        return { ok: true, view: { ...(args.view as Json), id, hash } };
      }
      case 'views.update': {
        const view = state.views.get(String(args.view_id));
        if (!view) return { ok: false, error: 'not_found' };
        // A hash the view no longer has: the view changed since the caller read it.
        if (typeof args.hash === 'string' && args.hash !== view.hash) return { ok: false, error: 'hash_conflict' };
        view.view = args.view as Json;
        view.hash = state.nextHash();
        // Errors were the old view's.
        delete view.errors;
        state.touch();
        return { ok: true, view: { ...view.view, id: view.id, hash: view.hash } };
      }
      case 'views.publish': {
        const user = String(args.user_id);
        const id = `VHOME${user}`;
        // A hash the home view no longer has: another view was published since the caller's.
        if (typeof args.hash === 'string' && args.hash !== state.views.get(id)?.hash)
          return { ok: false, error: 'hash_conflict' };
        const hash = state.nextHash();
        state.views.set(id, { id, user, kind: 'home', view: args.view as Json, hash });
        state.touch();
        return { ok: true, view: { ...(args.view as Json), id, hash } };
      }
      case 'users.info': {
        const user = state.user(String(args.user));
        return user
          ? { ok: true, user: { id: user.id, team_id: 'TSANDBOX', name: user.name, tz: user.tz } }
          : { ok: false, error: 'user_not_found' };
      }
      case 'usergroups.users.list':
        return args.usergroup === EDITORS_GROUP
          ? { ok: true, users: state.users.filter((user) => user.editor).map((user) => user.id) }
          : { ok: false, error: 'no_such_subteam' };
      case 'conversations.info': {
        // Every sandbox conversation is the organization's own, the bot in it: figures show.
        const channel = state.channelFor(String(args.channel ?? ''));
        if (!channel || channel.id !== args.channel) return { ok: false, error: 'channel_not_found' };
        return channel.kind === 'dm'
          ? { ok: true, channel: { id: channel.id, is_im: true, user: channel.user } }
          : { ok: true, channel: { id: channel.id, is_channel: true, is_member: true, is_ext_shared: false } };
      }
      case 'conversations.members': {
        // Everyone of the sandbox is in every channel (none is a guest), as the figures rule asks.
        const channel = state.channelFor(String(args.channel ?? ''));
        if (!channel || channel.id !== args.channel) return { ok: false, error: 'channel_not_found' };
        const members = [BOT_ID, ...state.users.map((user) => user.id)];
        return { ok: true, members, response_metadata: { next_cursor: '' } };
      }
      case 'conversations.open': {
        // The person's DM with the bot, by its own id (D...).
        const dm = state.channelFor(String(args.users ?? ''));
        return dm?.kind === 'dm' ? { ok: true, channel: { id: dm.id } } : { ok: false, error: 'user_not_found' };
      }
      case 'conversations.replies':
        return conversationReplies(
          state.messages.filter((message) => message.channel === args.channel && !message.ephemeralFor).reverse(),
          args,
        );
      case 'conversations.history':
        return conversationHistory(
          state.messages.filter((message) => message.channel === args.channel && !message.ephemeralFor).reverse(),
          args,
        );
      case 'files.getUploadURLExternal': {
        const id = state.nextId('F');
        state.files.set(id, { id, name: String(args.filename ?? 'file'), title: '', content: '', pending: true });
        return { ok: true, upload_url: deps.uploadUrl(id), file_id: id };
      }
      case 'files.completeUploadExternal': {
        const listed = Array.isArray(args.files) ? (args.files as { id?: string; title?: string }[]) : [];
        const files = listed.flatMap((entry) => {
          const file = entry.id ? state.files.get(entry.id) : undefined;
          return file ? [{ id: file.id, name: file.name, title: entry.title ?? file.name, content: file.content }] : [];
        });
        const channel = state.channelFor(String(args.channel_id));
        if (channel) {
          state.post({
            channel: channel.id,
            author: BOT_ID,
            text: '',
            blocks: [],
            threadTs: typeof args.thread_ts === 'string' ? args.thread_ts : undefined,
            files,
          });
        }
        return { ok: true, files: files.map((file) => ({ id: file.id, title: file.title })) };
      }
      case 'functions.distributions.permissions.set':
        // A step is named by its callback id and its app's id (docs.slack.dev), or by its own id.
        if (typeof args.function_id !== 'string' && typeof args.function_app_id !== 'string')
          return { ok: false, error: 'invalid_arguments' };
        // The sandbox has no Workflow Builder: who may add the step is noted, and taken.
        logger.debug('Workflow step distribution set', {
          step: args.function_callback_id,
          permissionType: args.permission_type,
          userIds: args.user_ids,
        });
        return { ok: true, permission_type: args.permission_type };
      default: {
        const streamed = sandboxStreamMethod(state, method, args);
        if (streamed) return streamed;
        logger.warn('The bot called a Web API method the sandbox does not serve', { method });
        return { ok: false, error: 'unknown_method' };
      }
    }
  };
}
