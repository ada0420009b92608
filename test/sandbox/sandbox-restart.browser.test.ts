import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type SandboxStack, startSandboxStack } from '../../src/sandbox/sandbox-stack.js';
import { launchChromium } from './launch-chromium.js';
import { openPage } from './open-page.js';

/*
 * `npm start` stopped and started again while the sandbox's tab stays open: each start makes up a
 * new token, and the open tab held the old one, so every action was a 403 seen only in the
 * browser's console and the typed command was gone. The tab carries on, or says why it cannot and
 * keeps what was typed.
 */

const WAIT = { timeout: 20_000 };
let browser: Browser | undefined;
let stack: SandboxStack | undefined;
let page: Page;
let port = 0;

const start = async () => {
  stack = await startSandboxStack({
    env: { LOG_LEVEL: 'error' },
    logger: createLogger({ level: 'error', write: () => {} }),
    port,
    compose: { progressIntervalMs: 0 },
  });
  port = Number(new URL(stack.url).port);
};

beforeAll(async () => {
  browser = await launchChromium();
  await start();
  page = await openPage(browser, stack?.url ?? '');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function type(text: string): Promise<void> {
  await page.fill('[data-testid=composer]', text);
  await page.press('[data-testid=composer]', 'Enter');
}

describe('an open sandbox tab across a restart', () => {
  it('keeps what was typed and says the sandbox is not running while it is down', async () => {
    await type('/events help');
    await page.locator('[data-testid=ephemeral]').last().waitFor(WAIT);
    await stack?.close();
    stack = undefined;
    await type('/events list');
    await expect.poll(() => page.locator('[data-testid=notice]').textContent(), WAIT).toMatch(/not running/);
    expect(await page.inputValue('[data-testid=composer]')).toBe('/events list');
  });

  it('works again once the sandbox is back: the command typed then goes through', async () => {
    await start();
    // The new start holds none of the old messages: the tab draws what it has.
    await expect.poll(() => page.locator('[data-testid=ephemeral]').count(), WAIT).toBe(0);
    await page.press('[data-testid=composer]', 'Enter');
    await expect.poll(() => page.inputValue('[data-testid=composer]'), WAIT).toBe('');
    await page.locator('[data-testid=ephemeral]', { hasText: 'Upcoming events' }).first().waitFor(WAIT);
    await expect.poll(() => page.locator('[data-testid=notice]').isVisible(), WAIT).toBe(false);
    // A click goes through too: a button of the list's answer reaches the bot.
    const before = await page.locator('[data-testid=ephemeral], [data-testid=message]').count();
    await page.locator('[data-testid=ephemeral] button[data-kind=button]').first().click();
    await expect
      .poll(() => page.locator('[data-testid=ephemeral], [data-testid=message], [data-testid=modal]').count(), WAIT)
      .toBeGreaterThan(before);
    expect(await page.locator('[data-testid=notice]').isVisible()).toBe(false);
  });
});
