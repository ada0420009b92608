import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox-server.js';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// Where the sandbox showed what Slack does not (or not what Slack does): a modal's answer to its
// submission, the person's own slash command, links, replies also sent to the channel, the hover
// menu. In a real Chromium, on the real bot, and for `push` and `clear` on a bot made up here.
const rig = useSandboxInBrowser(() => launchChromium());
const { type, simulator, messageWith, postFromBot } = rig;

const modal = () => rig.page.locator('[data-testid=modal]');
/** What a locator shows, at once ('' when nothing matches: a poll on it then fails in its time). */
const textOf = async (locator: ReturnType<Page['locator']>) => (await locator.allInnerTexts()).join('\n');

describe("the sandbox shows a modal's answer to its submission as Slack does", () => {
  it('keeps the promo form open after Review, updated to say where the confirmation goes', async () => {
    await rig.stack.bot.catalog.snapshot();
    const now = Date.now();
    const upcoming = simulator().catalog.events.filter(
      (event) => event.status === 'published' && event.startsAtMs > now + 86_400_000,
    );
    const promo = simulator().catalog.promos.find((each) => upcoming.some((event) => event.id === each.eventId));
    const event = upcoming.find((each) => each.id === promo?.eventId);
    await rig.page.click('#shortcut');
    await expect.poll(() => modal().count(), { timeout: 10_000 }).toBe(1);
    const picker = modal().locator('[data-kind=external_select]');
    await picker.fill(String(event?.name).toLowerCase());
    const option = modal().locator(`[data-testid=options] li[data-value="${promo?.eventId}"]`);
    await expect.poll(() => option.count(), { timeout: 10_000 }).toBe(1);
    await option.dispatchEvent('mousedown');
    await modal().locator('[data-action=promo_id]').fill(String(promo?.id));
    await modal().locator('[data-action=quantity]').fill('77');
    await modal().getByRole('button', { name: 'Review' }).click();
    // The bot answered `response_action: 'update'`: the form's view is replaced, not closed.
    await expect.poll(() => modal().getByRole('button', { name: 'Review' }).count(), { timeout: 10_000 }).toBe(0);
    expect(await modal().count()).toBe(1);
    // And it says where the confirmation went, once the bot has sent it.
    await expect.poll(() => textOf(modal()), { timeout: 10_000 }).toMatch(/(confirmation|answer) is in/);
    await modal().locator('[data-close]').click();
    await expect.poll(() => modal().count()).toBe(0);
  });
});

/** A bot that answers each submission with what its view's callback_id names. */
function viewBot(apiUrl: () => string): Server {
  const view = (callbackId: string, title: string, text: string, submit: string) => ({
    type: 'modal',
    callback_id: callbackId,
    title: { type: 'plain_text', text: title },
    submit: { type: 'plain_text', text: submit },
    close: { type: 'plain_text', text: 'Back' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'input',
        block_id: 'note',
        label: { type: 'plain_text', text: 'Note' },
        element: { type: 'plain_text_input', action_id: 'note' },
      },
    ],
  });
  const read = async (req: IncomingMessage) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    return JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') as Record<string, unknown>;
  };
  return createServer((req, res) => {
    void read(req).then(async (payload) => {
      const answer = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body === undefined ? '' : JSON.stringify(body));
      };
      if (payload.type === 'shortcut') {
        await fetch(`${apiUrl()}views.open`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            trigger_id: payload.trigger_id,
            view: view('first', 'Step one', 'The first step', 'Next'),
          }),
        });
        answer(undefined);
        return;
      }
      const callbackId = (payload.view as { callback_id?: string } | undefined)?.callback_id;
      if (callbackId === 'first')
        answer({ response_action: 'push', view: view('second', 'Step two', 'The second step', 'Finish') });
      else if (callbackId === 'second') answer({ response_action: 'clear' });
      else answer(undefined);
    });
  });
}

describe('the sandbox keeps a stack of views: push, back, clear', () => {
  let sandbox: Sandbox | undefined;
  let bot: Server | undefined;
  let page: Page | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox({ logger: createLogger({ level: 'error', write: () => {} }) });
    const api = sandbox.apiUrl;
    bot = viewBot(() => api);
    await new Promise<void>((resolve) => bot?.listen(0, '127.0.0.1', resolve));
    sandbox.connect(`http://127.0.0.1:${(bot.address() as AddressInfo).port}/`, 'secret');
    page = await rig.browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(sandbox.url);
  }, 30_000);

  afterAll(async () => {
    await page?.close();
    bot?.closeAllConnections();
    await new Promise<void>((resolve) => (bot ? bot.close(() => resolve()) : resolve()));
    await sandbox?.close();
  });

  it('pushes a view over the submitted one, goes back to it on close, and clears them all', async () => {
    const p = page as Page;
    const shown = p.locator('[data-testid=modal]');
    await p.click('#shortcut');
    await expect.poll(() => textOf(shown), { timeout: 10_000 }).toContain('The first step');
    await shown.locator('[data-action=note]').fill('kept under');
    await shown.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => textOf(shown), { timeout: 10_000 }).toContain('The second step');
    expect(await shown.count()).toBe(1);
    expect(await shown.locator('[data-action=note]').inputValue()).toBe('');
    // Closing the pushed view goes back to the one under it, as it was left.
    await shown.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => textOf(shown), { timeout: 10_000 }).toContain('The first step');
    expect(await shown.locator('[data-action=note]').inputValue()).toBe('kept under');
    await shown.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => textOf(shown), { timeout: 10_000 }).toContain('The second step');
    // `clear` closes the whole stack.
    await shown.getByRole('button', { name: 'Finish' }).click();
    await expect.poll(() => shown.count(), { timeout: 10_000 }).toBe(0);
    expect(sandbox?.state.views.size).toBe(0);
  });
});

describe('the sandbox shows messages as Slack does', () => {
  it("does not post the person's own slash command as a message only they see", async () => {
    await type('/events help');
    const answers = rig.page.locator('[data-testid=ephemeral]');
    await expect.poll(() => answers.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    // Slack shows the app's answer ("Only visible to you"), not the typed command as a message.
    const mine = rig.page.locator('.message').filter({ has: rig.page.locator('.avatar.person') });
    expect(await mine.filter({ hasText: '/events help' }).count()).toBe(0);
  });

  it('makes pasted http(s) URLs links, and nothing else', async () => {
    await type('see https://example.com/a_b?x=1&y=2. or javascript:alert(1) <b>bold</b>');
    const message = messageWith('see https://example.com/a_b');
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    const links = message.locator('.body a[href]');
    expect(await links.count()).toBe(1);
    expect(await links.first().getAttribute('href')).toBe('https://example.com/a_b?x=1&y=2');
    expect(await links.first().innerText()).toBe('https://example.com/a_b?x=1&y=2');
    // Text stays text: no element made of what was typed.
    expect(await message.locator('.body b', { hasText: 'bold' }).count()).toBe(0);
    expect(await message.innerText()).toContain('<b>bold</b>');
  });

  it('marks a thread reply also sent to the channel, in the channel and in the thread', async () => {
    const parent = `Parent ${Date.now()}`;
    await postFromBot({ text: parent });
    const parentMessage = messageWith(parent);
    await expect.poll(() => parentMessage.count(), { timeout: 10_000 }).toBe(1);
    const ts = String(await parentMessage.getAttribute('data-ts'));
    await postFromBot({ text: 'A reply for everyone', thread_ts: ts, reply_broadcast: true });
    const inChannel = rig.page.locator('#messages [data-testid=message]', { hasText: 'A reply for everyone' });
    await expect.poll(() => inChannel.count(), { timeout: 10_000 }).toBe(1);
    expect(await inChannel.innerText()).toContain('replied to a thread');
    // The channel's line names the message it answers, and opens its thread.
    expect(await inChannel.innerText()).toContain(parent);
    await rig.page.locator(`#messages [data-ts="${ts}"] > .body > .thread-link`).click();
    const inThread = rig.page.locator('#thread [data-testid=message]', { hasText: 'A reply for everyone' });
    await expect.poll(() => inThread.count()).toBe(1);
    expect(await inThread.innerText()).toContain('Also sent to the channel');
    await rig.page.click('#close-thread');
  });

  it("puts a message's hover actions where they cover none of its text", async () => {
    const long = `Long ${'words that fill the line '.repeat(30)}end`;
    await postFromBot({ text: long });
    const message = messageWith('words that fill the line').last();
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    await message.hover();
    const button = message.locator('[data-testid=more-actions]');
    await expect
      .poll(() => button.evaluate((node) => node.ownerDocument.defaultView?.getComputedStyle(node).opacity))
      .toBe('1');
    const [menu, text] = await Promise.all([button.boundingBox(), message.locator('.body').boundingBox()]);
    if (!menu || !text) throw new Error('both are drawn');
    const overlaps =
      menu.x < text.x + text.width &&
      text.x < menu.x + menu.width &&
      menu.y < text.y + text.height &&
      text.y < menu.y + menu.height;
    expect(overlaps).toBe(false);
  });
});
