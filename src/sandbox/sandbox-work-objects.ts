import type { SandboxMessage, SandboxState } from './sandbox-state.js';

type Json = Record<string, unknown>;

/**
 * Work Objects in the sandbox, as Slack keeps them: the cards `chat.unfurl` attached to a message
 * (its `metadata.entities`, by the URL each unfolds), the flexpane a click asks the bot for
 * (`entity_details_requested`), and the one `entity.presentDetails` fills for that person alone.
 */

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** `chat.unfurl` with `metadata.entities`: each entity on the message, by the link it unfolds. */
export function unfurlEntities(message: SandboxMessage, metadata: unknown): boolean {
  const entities = isObject(metadata) && Array.isArray(metadata.entities) ? metadata.entities : undefined;
  if (!entities) return false;
  const byUrl = { ...message.entities };
  for (const entity of entities) {
    if (!isObject(entity) || typeof entity.app_unfurl_url !== 'string') return false;
    byUrl[entity.app_unfurl_url] = entity;
  }
  message.entities = byUrl;
  return true;
}

/**
 * The `entity_details_requested` event a click on a card sends, with a trigger that is the
 * clicking person's; undefined when the message has no card for that URL.
 */
export function entityDetailsRequested(
  state: SandboxState,
  input: { user: string; channel: string; messageTs: string; url: string },
): Json | undefined {
  const message = state.find(input.channel, input.messageTs);
  const entity = message?.entities?.[input.url];
  if (!message || !isObject(entity)) return undefined;
  // The panel opens at once (empty), as Slack's does while the app answers.
  state.flexpanes.set(input.user, { url: input.url });
  state.touch();
  return {
    type: 'entity_details_requested',
    user: input.user,
    trigger_id: state.addTrigger({ user: input.user, channel: input.channel }),
    link: { url: input.url, domain: safeHost(input.url) },
    external_ref: entity.external_ref,
    entity_url: entity.url,
    app_unfurl_url: input.url,
    channel: input.channel,
    message_ts: input.messageTs,
    user_locale: 'en-US',
    event_ts: String(Date.now() / 1000),
  };
}

/** `entity.presentDetails`: the flexpane of the person whose click sent the trigger. */
export function presentDetails(state: SandboxState, args: Json): Json {
  const trigger = state.trigger(String(args.trigger_id));
  if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
  const open = state.flexpanes.get(trigger.user);
  if (!open) return { ok: false, error: 'invalid_trigger_id' };
  const metadata = isObject(args.metadata) ? args.metadata : undefined;
  const error = isObject(args.error) ? args.error : undefined;
  if (!metadata && !error) return { ok: false, error: 'invalid_metadata' };
  state.flexpanes.set(trigger.user, { url: open.url, metadata, error });
  state.touch();
  return { ok: true };
}

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
