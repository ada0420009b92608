import type { BotForwarder } from './forward-to-bot.js';
import { BOT_ID, type ResponseTarget, type SandboxState, SLACKBOT_ID } from './sandbox-state.js';
import { entityDetailsRequested } from './sandbox-work-objects.js';

type Json = Record<string, unknown>;

export interface PageActionsDeps {
  state: SandboxState;
  /** The bot, once it listens. */
  bot(): BotForwarder;
  /** A new response_url posting to this target. */
  responseUrl(target: ResponseTarget): string;
  /** The host whose links the bot unfolds (its EVENT_PAGE_URL), if any. */
  unfurlHost(): string | undefined;
}

/** The links of a message, as Slack finds them to send `link_shared`. */
const LINKS = /https?:\/\/[^\s<>|]+/gi;

/** What the page does (`/ui/...`), turned into what Slack would send the bot. */
export function pageActions(deps: PageActionsDeps): (path: string, input: Json) => Promise<unknown> {
  const { state, responseUrl } = deps;
  const triggerFor = (user: string, channel: string | undefined) => state.addTrigger({ user, channel });

  return async (path, input) => {
    const user = state.user(String(input.user));
    if (!user) throw new Error('unknown user');
    const userField = { id: user.id, username: user.name, name: user.name, team_id: 'TSANDBOX' };
    const common = {
      team: { id: 'TSANDBOX', domain: 'sandbox' },
      api_app_id: 'ASANDBOX',
      token: 'sandbox',
      user: userField,
    };
    switch (path) {
      case '/ui/state':
        return state.visibleTo(user.id);
      case '/ui/command': {
        const channel = state.channelFor(String(input.channel));
        if (!channel) throw new Error('unknown channel');
        const typed = String(input.text ?? '').trim();
        const command = typed.split(/\s/, 1)[0] ?? '';
        if (command !== '/events') {
          // As Slack: a command no app in the workspace has is not sent anywhere; Slackbot says so.
          state.post({
            channel: channel.id,
            author: SLACKBOT_ID,
            text: `\`${command.slice(0, 40)}\` is not a valid command. In Slack, all messages that start with the "/" character are interpreted as commands. (This app's command is \`/events\`.) To send a message that starts with "/", put a space before it.`,
            blocks: [],
            ephemeralFor: user.id,
          });
          return { status: 200 };
        }
        const text = typed.replace(/^\/events\s*/, '');
        // As Slack: the command typed is not a message. Only an answer to everyone (`in_channel`)
        // shows it, above that answer (see the response_url in sandbox-server.ts).
        const result = await deps.bot().form({
          token: 'sandbox',
          team_id: 'TSANDBOX',
          team_domain: 'sandbox',
          channel_id: channel.id,
          channel_name: channel.name,
          user_id: user.id,
          user_name: user.name,
          command: '/events',
          text,
          api_app_id: 'ASANDBOX',
          response_url: responseUrl({ user: user.id, channel: channel.id, command: `/events ${text}`.trim() }),
          trigger_id: triggerFor(user.id, channel.id),
        });
        return { status: result.status };
      }
      case '/ui/action': {
        const action = input.action as Json;
        const view = typeof input.viewId === 'string' ? state.views.get(input.viewId) : undefined;
        // Slack sends the whole view with the form's state as it stands, and its hash (a views.update
        // with it fails once the view has changed since).
        const values = input.values && typeof input.values === 'object' ? (input.values as Json) : {};
        const channel = typeof input.channel === 'string' ? input.channel : undefined;
        const messageTs = typeof input.messageTs === 'string' ? input.messageTs : undefined;
        const payload: Json = {
          ...common,
          type: 'block_actions',
          trigger_id: triggerFor(user.id, channel),
          actions: [{ ...action, action_ts: String(Date.now() / 1000) }],
          ...(view
            ? {
                container: { type: 'view', view_id: view.id },
                view: {
                  ...view.view,
                  id: view.id,
                  team_id: 'TSANDBOX',
                  app_id: 'ASANDBOX',
                  bot_id: 'BEVENTOPS',
                  hash: view.hash,
                  root_view_id: view.id,
                  previous_view_id: null,
                  state: { values },
                },
              }
            : {}),
          ...(channel ? { channel: { id: channel, name: state.channelFor(channel)?.name ?? '' } } : {}),
          ...(channel && messageTs
            ? {
                container: {
                  type: 'message',
                  message_ts: messageTs,
                  channel_id: channel,
                  is_ephemeral: Boolean(state.find(channel, messageTs)?.ephemeralFor),
                },
                message: { ts: messageTs },
                response_url: responseUrl({ user: user.id, channel, messageTs }),
              }
            : {}),
        };
        return { status: (await deps.bot().interaction(payload)).status };
      }
      case '/ui/message-shortcut': {
        // A message's More actions menu: Slack sends the message whole, and a response_url.
        const channel = state.channelFor(String(input.channel));
        const message = channel ? state.find(channel.id, String(input.messageTs)) : undefined;
        if (!channel || !message || message.ephemeralFor) throw new Error('unknown message');
        const result = await deps.bot().interaction({
          ...common,
          type: 'message_action',
          callback_id: String(input.callbackId),
          trigger_id: triggerFor(user.id, channel.id),
          action_ts: String(Date.now() / 1000),
          message_ts: message.ts,
          response_url: responseUrl({ user: user.id, channel: channel.id }),
          channel: { id: channel.id, name: channel.name },
          message: {
            type: 'message',
            ts: message.ts,
            text: message.text,
            ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
            ...(message.author === BOT_ID ? { bot_id: 'BEVENTOPS' } : { user: message.author }),
            ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
            ...(message.files ? { files: message.files.map(({ id, name, title }) => ({ id, name, title })) } : {}),
          },
        });
        return { status: result.status };
      }
      case '/ui/options': {
        const result = await deps.bot().interaction({
          ...common,
          type: 'block_suggestion',
          action_id: input.actionId,
          block_id: input.blockId,
          value: String(input.value ?? ''),
          container: { type: 'view', view_id: input.viewId },
        });
        return result.text ? JSON.parse(result.text) : { options: [] };
      }
      case '/ui/submit': {
        const view = state.views.get(String(input.viewId));
        if (!view) throw new Error('unknown view');
        const root = state.modalStack(view.id)[0] ?? view;
        const result = await deps.bot().interaction({
          ...common,
          type: 'view_submission',
          trigger_id: triggerFor(user.id, undefined),
          view: {
            ...view.view,
            id: view.id,
            hash: view.hash,
            root_view_id: root.id,
            previous_view_id: view.previous ?? null,
            state: { values: input.values },
          },
        });
        const answer = result.text ? (JSON.parse(result.text) as Json) : {};
        // Slack's answers to a submission (https://docs.slack.dev/surfaces/modals): field errors keep
        // the view; `update` replaces it in place (same id); `push` stacks a new view over it;
        // `clear` closes the whole modal; anything else closes this view, showing the one under it.
        const newView = answer.view && typeof answer.view === 'object' ? (answer.view as Json) : undefined;
        if (answer.response_action === 'errors') {
          view.errors = answer.errors as Record<string, string>;
        } else if (answer.response_action === 'update' && newView) {
          view.view = newView;
          view.hash = state.nextHash();
          delete view.errors;
        } else if (answer.response_action === 'push' && newView) {
          delete view.errors;
          const id = state.nextId('V');
          state.views.set(id, {
            id,
            user: view.user,
            kind: 'modal',
            view: newView,
            hash: state.nextHash(),
            previous: view.id,
          });
        } else if (answer.response_action === 'clear') {
          for (const each of state.modalStack(view.id)) state.views.delete(each.id);
        } else {
          state.closeView(view.id);
        }
        state.touch();
        return answer;
      }
      case '/ui/message': {
        // A message a person posts; links to the unfurl host are sent to the bot as Slack does.
        const channel = state.channelFor(String(input.channel));
        if (!channel) throw new Error('unknown channel');
        const text = String(input.text ?? '').slice(0, 4_000);
        const posted = state.post({ channel: channel.id, author: user.id, text, blocks: [] });
        const host = deps.unfurlHost();
        const links = [...text.matchAll(LINKS)]
          .map((match) => match[0])
          .filter((url) => {
            try {
              return host !== undefined && new URL(url).hostname.toLowerCase() === host;
            } catch {
              return false;
            }
          })
          .map((url) => ({ url, domain: host as string }));
        if (links.length > 0) {
          await deps
            .bot()
            .event({ type: 'link_shared', channel: channel.id, user: user.id, message_ts: posted.ts, links });
        }
        return {};
      }
      case '/ui/entity': {
        // A click on a Work Object card: Slack asks the app for this person's flexpane.
        const event = entityDetailsRequested(state, {
          user: user.id,
          channel: String(input.channel),
          messageTs: String(input.messageTs),
          url: String(input.url),
        });
        if (!event) throw new Error('unknown work object');
        await deps.bot().event(event);
        return {};
      }
      case '/ui/flexpane-close':
        state.flexpanes.delete(user.id);
        state.touch();
        return {};
      case '/ui/close':
        // Its close button: this view goes, and the one under it (if it was pushed) shows again.
        state.closeView(String(input.viewId));
        return {};
      case '/ui/home':
        await deps.bot().event({
          type: 'app_home_opened',
          user: user.id,
          channel: `D${user.id.slice(1)}`,
          tab: 'home',
        });
        return {};
      case '/ui/shortcut':
        await deps.bot().interaction({
          ...common,
          type: 'shortcut',
          callback_id: String(input.callbackId),
          trigger_id: triggerFor(user.id, undefined),
          action_ts: String(Date.now() / 1000),
        });
        return {};
      default:
        throw new Error(`no such page action ${path}`);
    }
  };
}
