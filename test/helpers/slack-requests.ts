import { createHmac, randomUUID } from 'node:crypto';

/** Signs a request body the way Slack does (`v0=` HMAC-SHA256 of `v0:{ts}:{body}`). */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** Posts a signed form body to the bot's HTTP receiver, with the exact content type Bolt expects. */
export async function postSigned(url: string, secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(secret, timestamp, body),
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, ackMs: performance.now() - started };
}

export interface CommandFields {
  text: string;
  user_id?: string;
  channel_id?: string;
  /** The workspace the command came from (default T0001, the bot's). */
  team_id?: string;
  response_url: string;
}

export function commandBody(fields: CommandFields): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: fields.team_id ?? 'T0001',
    team_domain: 'test',
    channel_id: fields.channel_id ?? 'C0001',
    channel_name: 'ops',
    user_id: fields.user_id ?? 'U0EDITOR',
    user_name: 'someone',
    command: '/events',
    text: fields.text,
    api_app_id: 'A0001',
    response_url: fields.response_url,
    trigger_id: '123.456.abc',
  }).toString();
}

export function blockActionBody(options: {
  actionId: string;
  value: string;
  userId?: string;
  channelId?: string;
  responseUrl: string;
  /** The message the button is on. @default '1.2' */
  messageTs?: string;
}): string {
  const payload = {
    type: 'block_actions',
    team: { id: 'T0001', domain: 'test' },
    user: { id: options.userId ?? 'U0EDITOR', username: 'someone', team_id: 'T0001' },
    api_app_id: 'A0001',
    token: 'legacy-verification-token',
    container: {
      type: 'message',
      message_ts: options.messageTs ?? '1.2',
      channel_id: options.channelId ?? 'C0001',
      is_ephemeral: options.messageTs === undefined,
    },
    trigger_id: '123.456.abc',
    channel: { id: options.channelId ?? 'C0001', name: 'ops' },
    response_url: options.responseUrl,
    actions: [
      {
        type: 'button',
        action_id: options.actionId,
        block_id: 'b1',
        value: options.value,
        action_ts: '1.3',
        text: { type: 'plain_text', text: 'x' },
      },
    ],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

export function eventBody(event: Record<string, unknown>): string {
  return JSON.stringify({
    token: 'legacy-verification-token',
    team_id: 'T0001',
    api_app_id: 'A0001',
    event,
    type: 'event_callback',
    event_id: `Ev${Math.floor(Math.random() * 1e9)}`,
    event_time: Math.floor(Date.now() / 1000),
  });
}

export async function postSignedJson(url: string, secret: string, body: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': slackSignature(secret, timestamp, body),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

const interactive = (payload: Record<string, unknown>) =>
  `payload=${encodeURIComponent(
    JSON.stringify({
      team: { id: 'T0001', domain: 'test' },
      api_app_id: 'A0001',
      token: 'legacy-verification-token',
      ...payload,
    }),
  )}`;

/** Typeahead of an `external_select` (a block_suggestion request). */
export function blockSuggestionBody(options: {
  actionId: string;
  blockId: string;
  value: string;
  userId?: string;
  /** The form the picker is in. @default 'promo_modal' */
  callbackId?: string;
}) {
  return interactive({
    type: 'block_suggestion',
    user: { id: options.userId ?? 'U0EDITOR', username: 'someone', team_id: 'T0001' },
    action_id: options.actionId,
    block_id: options.blockId,
    value: options.value,
    container: { type: 'view', view_id: 'V0001' },
    view: { id: 'V0001', type: 'modal', callback_id: options.callbackId ?? 'promo_modal' },
  });
}

/** A modal submitted with these input values (block id -> action id -> value). */
export function viewSubmissionBody(options: {
  callbackId: string;
  privateMetadata: string;
  values: Record<string, Record<string, Record<string, unknown>>>;
  userId?: string;
}) {
  return interactive({
    type: 'view_submission',
    user: { id: options.userId ?? 'U0EDITOR', username: 'someone', team_id: 'T0001' },
    trigger_id: '123.456.abc',
    view: {
      id: 'V0001',
      type: 'modal',
      callback_id: options.callbackId,
      private_metadata: options.privateMetadata,
      state: { values: options.values },
      hash: '1.abc',
    },
  });
}

/** A global shortcut. */
export function shortcutBody(options: { callbackId: string; userId?: string }) {
  return interactive({
    type: 'shortcut',
    callback_id: options.callbackId,
    trigger_id: '123.456.abc',
    user: { id: options.userId ?? 'U0EDITOR', username: 'someone', team_id: 'T0001' },
    action_ts: '1.2',
  });
}

/** A `function_executed` event for one run of the step `callbackId`, as Slack delivers it to the Events API. */
/**
 * The "Get event report" step's inputs that say who reads its figures: a member of the
 * organization running it, its figures posted in one of the organization's channels.
 */
export const REPORT_STEP_READER = { run_by: { id: 'U0RUNNER', secret: 'x' }, post_in: 'C0OPS' } as const;

export function functionExecutedBody(
  callbackId: string,
  inputs: Record<string, unknown>,
  executionId: string,
  workflowToken: string,
): string {
  const now = Math.floor(Date.now() / 1000);
  return JSON.stringify({
    token: 'legacy-verification-token',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: `Ev${randomUUID().slice(0, 8)}`,
    event_time: now,
    event: {
      type: 'function_executed',
      function: {
        id: 'Fn0001',
        callback_id: callbackId,
        title: callbackId,
        type: 'app',
        input_parameters: [],
        output_parameters: [],
        app_id: 'A0001',
        date_created: now,
        date_updated: now,
        date_deleted: 0,
      },
      inputs,
      function_execution_id: executionId,
      workflow_execution_id: `Wx${randomUUID().slice(0, 8)}`,
      event_ts: `${now}.000100`,
      bot_access_token: workflowToken,
    },
  });
}
