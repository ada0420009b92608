import { afterEach, describe, expect, it } from 'vitest';
import { PROMO_FOR_EVENT_ACTION } from '../../src/render/event-blocks.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { postSigned } from '../helpers/slack-requests.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function shortcutOn(r: BotRig, text: string, user = 'U0EDITOR') {
  const responseUrl = r.slack.responseUrl();
  const payload = {
    type: 'message_action',
    callback_id: 'show_event_from_message',
    team: { id: 'T0001', domain: 'test' },
    api_app_id: 'A0001',
    token: 'legacy-verification-token',
    user: { id: user, username: 'someone', team_id: 'T0001' },
    channel: { id: 'C0001', name: 'ops' },
    message: { type: 'message', ts: '1700000000.000100', user: 'U0OTHER', text },
    message_ts: '1700000000.000100',
    trigger_id: '123.456.abc',
    action_ts: '1.2',
    response_url: responseUrl,
  };
  const answer = await postSigned(r.url, SIGNING_SECRET, `payload=${encodeURIComponent(JSON.stringify(payload))}`);
  expect(answer.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  const reply = await r.slack.waitFor(() => r.slack.responses.find((call) => call.method === path));
  return reply.args as { blocks?: unknown[]; response_type?: string; text?: string };
}

describe('the "Show event" message shortcut', () => {
  it('shows privately a card for each event the message names: a page link, a bare id, an exact name', async () => {
    rig = await startBot({ env: { EVENT_PAGE_URL: 'https://tickets.example.com/e/{id}' } });
    const events = rig.sim.catalog.events.filter((event) => event.status === 'published' && event.name.length > 6);
    const [byLink, byId] = events;
    const byName = events.find(
      (event) =>
        !events.some((other) => other !== event && other.name === event.name) && event !== byLink && event !== byId,
    );
    if (!byLink || !byId || !byName) throw new Error('the seed has published events');
    const text = `Linked <https://tickets.example.com/e/${byLink.id}|here>, id ${byId.id.slice(4)}, and ${byName.name.toUpperCase()} tonight <!channel>`;
    const reply = await shortcutOn(rig, text);
    expect(reply.response_type).toBe('ephemeral');
    const blocks = JSON.stringify(reply.blocks);
    for (const event of [byLink, byId, byName]) expect(blocks).toContain(event.id);
    expect(blocks).toContain('event_pick_report');
    expect(blocks).toContain(PROMO_FOR_EVENT_ACTION);
    expect(blocks).not.toContain('<!channel>');
  });

  it('offers no Promo button to someone who is not a promo editor, and says when no event is named', async () => {
    rig = await startBot();
    const [event] = rig.sim.catalog.events;
    const reply = await shortcutOn(rig, `about ${event?.id}`, 'U0NOBODY');
    expect(JSON.stringify(reply.blocks)).toContain('event_pick_report');
    expect(JSON.stringify(reply.blocks)).not.toContain(PROMO_FOR_EVENT_ACTION);
    const none = await shortcutOn(rig, 'lunch at noon?');
    expect(String(none.text)).toContain('names no event');
  });
});
