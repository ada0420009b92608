/**
 * Retakes the local sandbox's screenshots (docs/screenshots/), shown in README.md and docs/sandbox.md:
 * `npm run screenshots`.
 * The whole bot runs in the sandbox on the built-in simulator and Debian's Chromium draws it; the
 * emoji need an emoji font (Debian fonts-noto-color-emoji). The browser tests take none: the
 * committed pictures change only when someone means them to.
 */
import type { Locator, Page } from 'playwright-core';
import { createLogger } from '../src/logger.js';
import { startSandboxStack } from '../src/sandbox/sandbox-stack.js';
import { launchChromium } from '../test/sandbox/launch-chromium.js';

const SHOTS = new URL('../docs/screenshots/', import.meta.url);
const WAIT = { timeout: 20_000 };

const stack = await startSandboxStack({
  env: { STORE_URL: 'sqlite://:memory:', TICKETING_REPORT_LIMIT: '1/4s', LOG_LEVEL: 'error' },
  logger: createLogger({ level: 'error' }),
  compose: { progressIntervalMs: 0 },
});
const browser = await launchChromium();

async function shoot(page: Page, name: string): Promise<void> {
  const path = new URL(`${name}.png`, SHOTS).pathname;
  await page.screenshot({ path });
  process.stdout.write(`${path}\n`);
}

async function type(page: Page, text: string): Promise<void> {
  await page.fill('[data-testid=composer]', text);
  await page.press('[data-testid=composer]', 'Enter');
}

/** The last of the matches, once there is one. */
async function last(locator: Locator): Promise<Locator> {
  await locator.first().waitFor(WAIT);
  return locator.last();
}

try {
  const simulator = stack.bot.simulator;
  if (!simulator) throw new Error('The sandbox runs on the built-in simulator here');
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.goto(stack.url);

  await type(page, '/events list');
  const list = await last(page.locator('[data-testid=ephemeral]', { hasText: 'Upcoming events' }));
  // The page keeps the newest line in view; the pictures of long messages start at their title.
  await list.locator('.header').first().scrollIntoViewIfNeeded();
  await shoot(page, 'list');

  // The report pictured has charts to show: an upcoming event with promo codes (their bars and
  // table) and a sales history seeded at start (its line), read while another report waits.
  await stack.salesHistorySeeded;
  const now = Date.now();
  const promoted = new Set(simulator.catalog.promos.map((each) => each.eventId));
  const candidates = simulator.catalog.events.filter(
    (each) => each.status === 'published' && each.startsAtMs > now && promoted.has(each.id),
  );
  const histories = await Promise.all(candidates.map((each) => stack.bot.history.read(each.id)));
  const charted = candidates.find((_, i) => (histories[i]?.points.length ?? 0) >= 3);
  if (!charted) throw new Error('The simulator has no upcoming event with promo codes and a sales history');
  const other = simulator.catalog.events.find((each) => each.id !== charted.id);
  await type(page, `/events report ${charted.id}`);
  await type(page, `/events report ${other?.id}`);
  const reports = page.locator('[data-testid=message]', { hasText: 'Tickets sold' });
  await reports.nth(1).waitFor(WAIT);
  const report = reports.first();
  await report.locator('[data-testid=chart]').first().waitFor(WAIT);
  await report.locator('.thread-link').click();
  await page.locator('#thread [data-testid=file]').waitFor(WAIT);
  // The picture starts at the forecast in words, above the sales chart, the promo chart and table.
  await page.evaluate(`(() => {
    const messages = document.querySelector('#messages');
    const chart = document.querySelector('[data-ts="${await report.getAttribute('data-ts')}"] [data-testid=chart]');
    messages.scrollTop += chart.getBoundingClientRect().top - messages.getBoundingClientRect().top - 40;
  })()`);
  await shoot(page, 'report');
  await page.click('#close-thread');

  const promo = simulator.catalog.promos[0];
  await type(page, `/events promo ${promo?.eventId} ${promo?.id} 42`);
  const asked = await last(page.locator('[data-testid=ephemeral]', { hasText: 'You are about to' }));
  await shoot(page, 'promo-confirm');
  // The message is the one confirmation: its button changes it.
  await asked.getByRole('button', { name: 'Set to 42' }).click();
  await page.locator('[data-testid=message]', { hasText: 'set promo code' }).waitFor(WAIT);

  await type(page, '/events promo');
  const modal = page.locator('[data-testid=modal]');
  await modal.waitFor(WAIT);
  await modal.locator('[data-kind=external_select]').fill('a');
  await modal.locator('[data-testid=options] li').first().waitFor(WAIT);
  await modal.locator('[data-testid=options] li').first().dispatchEvent('mousedown');
  await modal.locator('[data-action=promo_id]').fill('not a code!');
  await modal.locator('[data-action=quantity]').fill('1,000');
  await modal.getByRole('button', { name: 'Review' }).click();
  await modal.locator('[data-testid=field-error]').nth(1).waitFor(WAIT);
  await shoot(page, 'promo-modal');
  await modal.getByRole('button', { name: 'Cancel' }).click();
  await modal.waitFor({ ...WAIT, state: 'detached' });

  await page.click('[data-channel=COPS000002]');
  await type(page, '/events digest on 08:00 --days 3');
  await page.locator('[data-testid=message]', { hasText: 'set up a daily digest' }).waitFor(WAIT);
  await page.click('[data-testid=digest-now]');
  const digest = page.locator('[data-testid=message]', { hasText: 'Events the next 3 days' });
  await digest.waitFor(WAIT);
  await digest.locator('.header').first().scrollIntoViewIfNeeded();
  await shoot(page, 'digest');

  await page.click('[data-testid=app-home]');
  await page.locator('[data-testid=home]', { hasText: 'Ticketing API budget' }).waitFor(WAIT);
  await page.locator('[data-testid=home]', { hasText: '→ 42' }).waitFor(WAIT);
  await shoot(page, 'app-home');
} finally {
  await browser.close();
  await stack.close();
}
