import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { searchEvents } from '../../src/catalog/event-search.js';
import { MAX_OPTIONS } from '../../src/render/modal-views.js';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// The sandbox's modals and what its page draws, in a real Chromium, and the page among other
// sites' pages. (Its commands are in sandbox-commands.browser.test.ts, run beside this file.)
const rig = useSandboxInBrowser(() => launchChromium());
const { type, simulator, nameableEvent, messageWith, postFromBot } = rig;

describe('the sandbox modals in a real browser', () => {
  it('shows field errors in the promo modal and picks an event by typing part of its name', async () => {
    await rig.stack.bot.catalog.snapshot();
    const event = nameableEvent();
    const [first, second] = (event.name as string).split(' ') as [string, string];
    const typed = `${first.slice(0, 4)} ${second.slice(0, 4)}`.toLowerCase();
    await type('/events promo');
    const modal = rig.page.locator('[data-testid=modal]');
    await expect.poll(() => modal.count(), { timeout: 10_000 }).toBe(1);
    const picker = modal.locator('[data-kind=external_select]');
    await picker.fill(typed);
    const option = modal.locator(`[data-testid=options] li[data-value="${event.id}"]`);
    await expect.poll(() => option.count(), { timeout: 10_000 }).toBe(1);
    await option.dispatchEvent('mousedown');
    await expect.poll(() => picker.inputValue()).toContain(event.name);
    await modal.locator('[data-action=promo_id]').fill('not a code!');
    await modal.locator('[data-action=quantity]').fill('1,000');
    await modal.getByRole('button', { name: 'Review' }).click();
    // The event was picked: only the promo and the quantity are wrong.
    await expect.poll(() => modal.locator('[data-testid=field-error]').count(), { timeout: 10_000 }).toBe(2);
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal.count()).toBe(0);
  });

  it('shows the answer to the latest keystroke when an earlier typeahead answer comes late', async () => {
    const snapshot = await rig.stack.bot.catalog.snapshot();
    const event = nameableEvent();
    const typed = (event.name as string).split(' ')[0]?.slice(0, 4).toLowerCase() as string;
    // The first request (sent on focus, with nothing typed) is held until the typed one is answered.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = 0;
    await rig.page.route('**/ui/options', async (route) => {
      asked += 1;
      if (asked === 1) await held;
      await route.continue();
    });
    try {
      await type('/events promo');
      const modal = rig.page.locator('[data-testid=modal]');
      await expect.poll(() => modal.count(), { timeout: 10_000 }).toBe(1);
      const picker = modal.locator('[data-kind=external_select]');
      await picker.focus();
      await expect.poll(() => asked).toBe(1);
      await picker.fill(typed);
      const options = modal.locator('[data-testid=options] li');
      await expect.poll(() => options.count(), { timeout: 10_000 }).toBeGreaterThan(0);
      const shown = await options.allInnerTexts();
      release();
      await expect.poll(() => picker.getAttribute('data-answers'), { timeout: 10_000 }).toBe('2');
      // The options are still the typed word's (found by the bot's own search, which forgives a
      // typo, so "wint" may also find "wine"): the late answer (all upcoming events) was dropped.
      expect(await options.allInnerTexts()).toEqual(shown);
      const found = searchEvents(snapshot.events, typed)
        .slice(0, MAX_OPTIONS)
        .map((match) => String(match.event.id));
      expect(await options.evaluateAll((items) => items.map((item) => item.getAttribute('data-value')))).toEqual(found);
      expect(found).toContain(String(event.id));
      await modal.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => modal.count()).toBe(0);
    } finally {
      release();
      await rig.page.unroute('**/ui/options');
    }
  });
});

/**
 * Runs in the page (this project's TypeScript has no DOM types): how many clearly coloured pixels
 * a PNG has. A colour emoji has many; a missing glyph's empty box is drawn in the text colour.
 */
const COLOURED_PIXELS = `async (base64) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + base64;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const { data } = context.getImageData(0, 0, image.width, image.height);
  let coloured = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 64) coloured += 1;
  }
  return coloured;
}`;
const colouredPixels = async (png: Buffer) =>
  (await rig.page.evaluate(`(${COLOURED_PIXELS})(${JSON.stringify(png.toString('base64'))})`)) as number;

describe('the sandbox page draws what Slack would', () => {
  it('shows a watch card that updates in place, and its alert in the thread and the channel', async () => {
    const { event, card } = await rig.watchStillEvent();
    // The report its conditions were read from is its first check: the card shows its figures.
    const figure = (n: number) => n.toLocaleString('en-US');
    await expect.poll(() => card.innerText()).toContain(`of ${figure(event.capacity)}`);
    const sold = Math.floor(event.capacity * 0.95);
    simulator().setFigures(event.id, { ticketsSold: sold });
    // The next check comes at the next spare report slot, a second on at least.
    await expect
      .poll(async () => (await rig.stack.bot.watches.turn()).kind, { timeout: 20_000, interval: 50 })
      .toBe('checked');
    await expect
      .poll(() => card.innerText(), { timeout: 10_000 })
      .toContain(`${figure(sold)} of ${figure(event.capacity)}`);

    const alert = rig.page.locator('[data-testid=message]', { hasText: '% sold' }).filter({ hasNotText: 'Watching:' });
    await expect.poll(() => alert.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await card.locator('.thread-link').click();
    await expect.poll(() => rig.page.locator('#thread').innerText()).toContain('% sold');
    await rig.page.click('#close-thread');
  });

  it('unfolds an event page link pasted in a message into the event card, a Work Object', async () => {
    const event = simulator().catalog.events.find((each) => each.status === 'published');
    if (!event) throw new Error('the seed has published events');
    await rig.page.click('[data-channel=CGENERAL01]');
    await type(`Who is going? https://tickets.example.com/e/${event.id} and https://tickets.example.com/about`);
    const posted = rig.page.locator('[data-testid=message]', { hasText: 'Who is going?' }).last();
    await expect.poll(() => posted.locator('[data-testid=work-object]').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => posted.locator('[data-testid=work-object]').innerText()).toContain(event.id);
  });

  it('shows a malformed Slack token as text, and the rest of the channel still renders', async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    await postFromBot({ text: 'Dates: <!date^x> <@> <!date^notanumber^{date}|> end' });
    await postFromBot({ text: 'after-the-malformed-tokens' });
    await expect.poll(() => messageWith('after-the-malformed-tokens').count(), { timeout: 10_000 }).toBe(1);
    expect(await messageWith('Dates:').innerText()).toContain('Dates: <!date^x> <@> <!date^notanumber^{date}|> end');
  });

  it('shows a message whose blocks it cannot draw as its text, and the rest of the channel still renders', async () => {
    await postFromBot({ text: 'text-of-the-undrawable-message', blocks: [{ type: 'context' }] });
    await postFromBot({ text: 'after-the-undrawable-message' });
    await expect.poll(() => messageWith('after-the-undrawable-message').count(), { timeout: 10_000 }).toBe(1);
    expect(await messageWith('text-of-the-undrawable-message').count()).toBe(1);
  });

  it('shows the emoji a shortcode names, in colour, and unknown shortcodes as typed', async () => {
    await postFromBot({ text: 'Emoji: :calendar: :no_such_code: :constructor: `:warning:`' });
    const message = messageWith('Emoji:');
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    expect(await message.innerText()).toContain('Emoji: 📅 :no_such_code: :constructor: :warning:');
    expect(await message.locator('code').innerText()).toBe(':warning:');
    // An emoji font is installed (Debian fonts-noto-color-emoji): no empty boxes in the page or its screenshots.
    expect(await colouredPixels(await message.locator('.emoji').screenshot())).toBeGreaterThan(20);
  });
});

/** Runs in the page: whether each person's name fits the user switcher, measured in its own font. */
const SWITCHER_FITS = `(() => {
  const select = document.querySelector('[data-testid=user-switcher]');
  const style = getComputedStyle(select);
  const context = document.createElement('canvas').getContext('2d');
  context.font = style.font;
  // What the select has for text: its width less its padding and the arrow (about 20 px).
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
  return [...select.options].map((option) => context.measureText(option.text).width <= room);
})()`;

describe('the sandbox shows what Slack shows', () => {
  it('draws the time picker in the App Home and sends the time picked', async () => {
    await rig.page.click('[data-testid=app-home]');
    const home = rig.page.locator('[data-testid=home]');
    await home.getByRole('button', { name: 'Turn on' }).click();
    const picker = home.locator('[data-kind=timepicker]');
    await expect.poll(() => picker.count(), { timeout: 10_000 }).toBe(1);
    expect(await picker.inputValue()).toBe('09:00');
    await picker.fill('07:30');
    await expect.poll(() => home.innerText(), { timeout: 10_000 }).toContain('at 07:30');
    expect(await picker.inputValue()).toBe('07:30');
    await rig.page.click('[data-channel=CGENERAL01]');
  });

  it('draws the watch form as the bot sends it and redraws it with the conditions of the event picked', async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    await rig.stack.bot.catalog.snapshot();
    const event = nameableEvent();
    await type('/events watch');
    const modal = rig.page.locator('[data-testid=modal]');
    await expect.poll(() => modal.count(), { timeout: 10_000 }).toBe(1);
    // Plain text as Slack shows it: its entities decoded once.
    expect(await modal.innerText()).toContain('sold >= 95%');
    expect(await modal.innerText()).not.toContain('&gt;');
    // "Only for me" is a checkbox, not a text box.
    const personal = modal.locator('[data-block=watch_personal] input[type=checkbox]');
    expect(await personal.count()).toBe(1);
    expect(await modal.locator('[data-block=watch_personal]').innerText()).toContain('Only for me');
    const picker = modal.locator('[data-kind=external_select]');
    await picker.fill((event.name as string).split(' ')[0]?.toLowerCase() as string);
    const option = modal.locator(`[data-testid=options] li[data-value="${event.id}"]`);
    await expect.poll(() => option.count(), { timeout: 10_000 }).toBe(1);
    await option.dispatchEvent('mousedown');
    // The pick goes to the bot (dispatch_action); its views.update shows what the report holds.
    const offered = modal.locator('[data-block=watch_offered] input[type=checkbox]');
    await expect.poll(() => offered.count(), { timeout: 15_000 }).toBeGreaterThan(1);
    expect(await modal.locator('[data-block=watch_offered] input:checked').count()).toBeGreaterThan(0);
    expect(await modal.locator('[data-block=watch_offered]').innerText()).toContain('sold >= 90%');
    expect(await picker.inputValue()).toContain(event.name);
    await personal.check();
    await modal.getByRole('button', { name: 'Watch' }).click();
    // The pick read the report, so the event's record holds it: the form closes at once, the answer
    // going where the watch is (a form with no report at hand stays open instead: watches.test.ts).
    await expect.poll(() => modal.count(), { timeout: 10_000 }).toBe(0);
    // Only for me: the watch card is in the person's DM.
    await rig.page.click('[data-channel=DEDITOR01]');
    const card = rig.page.locator('[data-testid=message]', { hasText: 'Watching:' }).filter({ hasText: event.name });
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    await rig.page.click('[data-channel=CGENERAL01]');
  });

  it("runs the app's message shortcut from a message's More actions menu", async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    await rig.stack.bot.catalog.snapshot();
    const event = nameableEvent();
    await postFromBot({ text: `more-actions-test: who goes to ${event.id}?` });
    const message = messageWith('more-actions-test');
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    await message.hover();
    await message.locator('[data-testid=more-actions]').click();
    await rig.page.locator('[data-testid=message-shortcuts]').getByRole('button', { name: 'Show event' }).click();
    const cards = rig.page.locator('[data-testid=ephemeral]').filter({ hasText: event.name });
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it('applies mrkdwn styles with Slack rules: word boundaries, nesting on one line, code and tokens untouched', async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    await postFromBot({
      text: 'Styles: *bold _both_* ~strike~ snake_case_name a*b*c * spaced * `*code*` <https://example.com/a_b|x_y> *not\nacross*',
    });
    const message = messageWith('Styles:');
    await expect.poll(() => message.count(), { timeout: 10_000 }).toBe(1);
    // (The author's name above the text is bold too.)
    const text = message.locator('.body > div:not(.meta)');
    expect(await text.locator('b').allInnerTexts()).toEqual(['bold both']);
    expect(await text.locator('b i').allInnerTexts()).toEqual(['both']);
    expect(await text.locator('s').allInnerTexts()).toEqual(['strike']);
    expect(await message.locator('code').innerText()).toBe('*code*');
    expect(await message.locator('a').innerText()).toBe('x_y');
    expect(await message.innerText()).toContain('snake_case_name a*b*c * spaced *');
    expect(await message.innerText()).toContain('*not\nacross*');
  });

  it('shows each person whole in the user switcher, and their timezone', async () => {
    expect(await rig.page.evaluate(SWITCHER_FITS)).toEqual([true, true]);
    expect(await rig.page.locator('[data-testid=user-zone]').innerText()).toContain('America/New_York');
  });
});

describe('the sandbox in a browser with other pages open', () => {
  it('does nothing for a page from another origin: an <img> GET, a text/plain POST, a form POST to the Web API', async () => {
    const sandbox = rig.stack.url.replace(/\/$/, '');
    const command = JSON.stringify({ user: 'UEDITOR01', channel: 'CGENERAL01', text: '/events find attack-by-fetch' });
    // The other site's page: everything a page may send to another origin without asking it first.
    const attack = `<!doctype html><img src="${sandbox}/ui/command?user=UEDITOR01&amp;channel=CGENERAL01&amp;text=attack-by-img">
<script>
  const sandbox = ${JSON.stringify(sandbox)};
  const image = document.querySelector('img');
  Promise.allSettled([
    fetch(sandbox + '/ui/command', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(command)} }),
    fetch(sandbox + '/api/chat.postMessage', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'channel=CGENERAL01&text=attack-by-web-api' }),
    new Promise((done) => { image.onload = image.onerror = done; if (image.complete) done(); }),
  ]).then(() => { document.title = 'sent'; });
</script>`;
    const other = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attack));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPage = await rig.browser.newPage();
    try {
      await otherPage.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await expect.poll(() => otherPage.title(), { timeout: 10_000 }).toBe('sent');
      expect(rig.stack.sandbox.state.messages.filter((message) => message.text.includes('attack-by'))).toEqual([]);
    } finally {
      await otherPage.close();
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('cannot be framed by another site (no clickjacking of its own buttons)', async () => {
    const frame = `<!doctype html><iframe src="${rig.stack.url}" width="800" height="600"></iframe>`;
    const other = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(frame));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPage = await rig.browser.newPage();
    try {
      // goto waits for the load event, which waits for the frame's own load (or its refusal).
      await otherPage.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const inner = otherPage.frames().find((candidate) => candidate !== otherPage.mainFrame());
      const text = inner ? await inner.content().catch(() => '') : '';
      expect(text).not.toContain('Change promo quantity');
    } finally {
      await otherPage.close();
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
