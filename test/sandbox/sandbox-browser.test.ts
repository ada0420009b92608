import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type SandboxStack, startSandboxStack } from '../../src/sandbox/sandbox-stack.js';

/** Debian's Chromium (`.ci/run` installs it when missing); Playwright's own download cannot run here. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = new URL('../../docs/screenshots/', import.meta.url);

let stack: SandboxStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: .ci/run installs the Debian package`);
  stack = await startSandboxStack({
    env: { STORE_URL: 'sqlite://:memory:', TICKETING_REPORT_LIMIT: '1/4s', LOG_LEVEL: 'error' },
    logger: createLogger({ level: 'error', write: () => {} }),
    compose: { progressIntervalMs: 0 },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(stack.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const simulator = () => {
  const sim = stack.bot.simulator;
  if (!sim) throw new Error('the sandbox runs on the simulator here');
  return sim;
};

async function type(text: string) {
  await page.fill('[data-testid=composer]', text);
  await page.press('[data-testid=composer]', 'Enter');
}

const shot = (name: string) => page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname });
const lastMessage = () => page.locator('#messages .message').last();

describe('the sandbox in a real browser', () => {
  it('lists upcoming events privately and pages with Next in place', async () => {
    await type('/events list');
    const list = page.locator('[data-testid=ephemeral]', { hasText: 'Upcoming events' }).last();
    await expect.poll(() => list.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => list.innerText()).toContain('Only visible to you');
    await shot('list');
    await list.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => list.innerText(), { timeout: 10_000 }).toContain('Upcoming events (page 2)');
  });

  it('shows one event card, with times in the event zone and the reader zone', async () => {
    const event = simulator().catalog.events.find((each) => each.startDate.includes('T'));
    await type(`/events show ${event?.id}`);
    await expect.poll(() => lastMessage().innerText(), { timeout: 10_000 }).toContain(event?.timezone ?? '?');
    await expect.poll(() => lastMessage().innerText()).toContain('Your time');
  });

  it('shows a report queue position, then the report, with the full JSON in a thread', async () => {
    const [first, second] = simulator().catalog.events;
    await type(`/events report ${first?.id}`);
    await type(`/events report ${second?.id}`);
    const queued = page.locator('[data-testid=message]', { hasText: 'queued: position 1' });
    await expect.poll(() => queued.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await shot('report-queued');
    const reports = page.locator('[data-testid=message]', { hasText: 'Tickets sold' });
    await expect.poll(() => reports.count(), { timeout: 20_000 }).toBe(2);
    await reports.first().locator('.thread-link').click();
    await expect.poll(() => page.locator('#thread [data-testid=file]').innerText()).toContain('.json');
    await shot('report');
    await page.click('#close-thread');
  });

  it('asks to confirm a promo change, confirms in a dialog, and announces it', async () => {
    const promo = simulator().catalog.promos[0];
    await type(`/events promo ${promo?.eventId} ${promo?.id} 42`);
    const asked = page.locator('[data-testid=ephemeral]', { hasText: 'You are about to' }).last();
    await expect.poll(() => asked.count(), { timeout: 10_000 }).toBe(1);
    // The same message is replaced in place: follow it by its timestamp.
    const confirmation = page.locator(`[data-ts="${await asked.getAttribute('data-ts')}"]`);
    await shot('promo-confirm');
    await confirmation.getByRole('button', { name: 'Set to 42' }).click();
    await expect.poll(() => page.locator('[data-testid=confirm]').count()).toBe(1);
    await shot('promo-dialog');
    await page.locator('[data-testid=confirm]').getByRole('button', { name: 'Change it' }).click();
    await expect.poll(() => confirmation.innerText(), { timeout: 10_000 }).toContain('now allows 42');
    await expect.poll(() => page.locator('[data-testid=message]', { hasText: 'set promo code' }).count()).toBe(1);
    expect(promo?.quantity).toBe(42);
  });

  it('refuses a promo change from someone who is not an editor', async () => {
    const promo = simulator().catalog.promos[1];
    await page.selectOption('[data-testid=user-switcher]', 'UVIEWER02');
    await type(`/events promo ${promo?.eventId} ${promo?.id} 5`);
    const refusal = page.locator('[data-testid=ephemeral]', { hasText: 'Only promo editors' });
    await expect.poll(() => refusal.count(), { timeout: 10_000 }).toBe(1);
    await page.selectOption('[data-testid=user-switcher]', 'UEDITOR01');
  });

  it('shows field errors in the promo modal and picks an event by typing part of its name', async () => {
    await type('/events promo');
    const modal = page.locator('[data-testid=modal]');
    await expect.poll(() => modal.count(), { timeout: 10_000 }).toBe(1);
    const picker = modal.locator('[data-kind=external_select]');
    await picker.fill('a');
    const options = modal.locator('[data-testid=options] li');
    await expect.poll(() => options.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await options.first().dispatchEvent('mousedown');
    await modal.locator('[data-action=promo_id]').fill('not-an-id');
    await modal.locator('[data-action=quantity]').fill('1,000');
    await modal.getByRole('button', { name: 'Review' }).click();
    await expect.poll(() => modal.locator('[data-testid=field-error]').count(), { timeout: 10_000 }).toBe(2);
    await shot('promo-modal');
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal.count()).toBe(0);
  });

  it('turns a digest on and sends it with the Send digest now button', async () => {
    await page.click('[data-channel=COPS000002]');
    await type('/events digest on 08:00 --days 3');
    await expect
      .poll(() => page.locator('[data-testid=message]', { hasText: 'set up a daily digest' }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await page.click('[data-testid=digest-now]');
    const digest = page.locator('[data-testid=message]', { hasText: 'Events the next 3 days' });
    await expect.poll(() => digest.count(), { timeout: 20_000 }).toBe(1);
    await shot('digest');
  });

  it('shows the App Home with events, recent promo changes and the budget', async () => {
    await page.click('[data-testid=app-home]');
    const home = page.locator('[data-testid=home]');
    await expect.poll(() => home.innerText(), { timeout: 10_000 }).toContain('Your recent promo changes');
    await expect.poll(() => home.innerText()).toContain('Ticketing API budget');
    await expect.poll(() => home.innerText()).toContain('→ 42');
    await shot('app-home');
  });
});
