import { createHmac } from 'node:crypto';

/** Sends what Slack would send to the bot's HTTP receiver, signed with the sandbox's secret. */
export class BotForwarder {
  readonly #url: string;
  readonly #secret: string;

  constructor(botUrl: string, signingSecret: string) {
    this.#url = botUrl;
    this.#secret = signingSecret;
  }

  /** A slash command or an interaction (`payload=`), as a form body. */
  form(fields: Record<string, string>): Promise<{ status: number; text: string }> {
    return this.#post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  }

  /** An interaction payload (block_actions, block_suggestion, view_submission, shortcut). */
  interaction(payload: Record<string, unknown>): Promise<{ status: number; text: string }> {
    return this.form({ payload: JSON.stringify(payload) });
  }

  /** An Events API callback (app_home_opened). */
  event(event: Record<string, unknown>): Promise<{ status: number; text: string }> {
    const body = JSON.stringify({
      token: 'sandbox',
      team_id: 'TSANDBOX',
      api_app_id: 'ASANDBOX',
      event,
      type: 'event_callback',
      event_id: `Ev${Date.now()}`,
      event_time: Math.floor(Date.now() / 1000),
    });
    return this.#post(body, 'application/json');
  }

  async #post(body: string, contentType: string): Promise<{ status: number; text: string }> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', this.#secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    const response = await fetch(this.#url, {
      method: 'POST',
      headers: {
        // Bolt compares the content type exactly: no charset.
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': signature,
      },
      body,
    });
    return { status: response.status, text: await response.text() };
  }
}
