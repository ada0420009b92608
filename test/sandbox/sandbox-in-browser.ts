import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type SandboxStack, startSandboxStack } from '../../src/sandbox/sandbox-stack.js';
import { openPage } from './open-page.js';

/** One sandbox, one headless Chromium and one page on it, for the browser suites of one file. */
export interface SandboxInBrowser {
  readonly stack: SandboxStack;
  readonly browser: Browser;
  readonly page: Page;
  /** The sandbox's simulator (it runs on one here). */
  simulator(): NonNullable<SandboxStack['bot']['simulator']>;
  /** Types into the composer and sends it, as a person would. */
  type(text: string): Promise<void>;
  /** An upcoming published event with a plain two-word name (the seed's "Adjective Noun"). */
  nameableEvent(): ReturnType<SandboxInBrowser['simulator']>['catalog']['events'][number];
  /** A message in the open channel with this text. */
  messageWith(text: string): ReturnType<Page['locator']>;
  /** A bot message posted straight through the sandbox's Web API, as the bot posts. */
  postFromBot(message: Record<string, unknown>): Promise<void>;
  /**
   * Watches `sold >= 90%` in #general, typed as a person would, on an upcoming event of at least
   * 100 seats whose figures stand still but for what the test sets; the event and its card.
   */
  watchStillEvent(): Promise<{
    event: ReturnType<SandboxInBrowser['simulator']>['catalog']['events'][number];
    card: ReturnType<Page['locator']>;
  }>;
}

/**
 * Starts the sandbox and the browser `launch` gives (`launchChromium`, named in each suite so that
 * the config finds it a browser suite) side by side before the file's tests and closes both after
 * them; each test starts with no modal, file or menu open (a test that failed with one open does not
 * fail every test after it).
 */
export function useSandboxInBrowser(launch: () => Promise<Browser>): SandboxInBrowser {
  let stack: SandboxStack | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} did not start`);
    return value;
  };

  beforeAll(async () => {
    const starting = launch();
    try {
      stack = await startSandboxStack({
        env: {
          STORE_URL: 'sqlite://:memory:',
          // One report per 1.5 s: a second report asked at once shows as queued for over a second
          // (five of the page's refreshes), and a watch's checks come 1.5 s apart.
          TICKETING_REPORT_LIMIT: '1/1500ms',
          // Checks a second apart at the least, each a fresh report (no cache to serve the last one).
          WATCH_MIN_INTERVAL: '1s',
          TICKETING_REPORT_CACHE_TTL: '0',
          LOG_LEVEL: 'error',
        },
        logger: createLogger({ level: 'error', write: () => {} }),
        compose: { progressIntervalMs: 0 },
      });
    } finally {
      // Kept even when the sandbox failed to start, so afterAll closes it.
      browser = await starting;
    }
    page = await openPage(browser, stack.url);
  }, 60_000);

  beforeEach(async () => {
    // Nor a file open over the page.
    await page?.keyboard.press('Escape');
    const close = page?.locator('[data-testid=modal] [data-close]');
    if (close && (await close.count()) > 0)
      await close
        .first()
        .click({ timeout: 5_000 })
        .catch(() => undefined);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const rig: SandboxInBrowser = {
    get stack() {
      return need(stack, 'sandbox');
    },
    get browser() {
      return need(browser, 'browser');
    },
    get page() {
      return need(page, 'page');
    },
    simulator() {
      const sim = rig.stack.bot.simulator;
      if (!sim) throw new Error('the sandbox runs on the simulator here');
      return sim;
    },
    async type(text) {
      await rig.page.fill('[data-testid=composer]', text);
      await rig.page.press('[data-testid=composer]', 'Enter');
    },
    nameableEvent() {
      const now = Date.now();
      const event = rig
        .simulator()
        .catalog.events.find(
          (each) =>
            each.status === 'published' &&
            each.startsAtMs > now + 86_400_000 &&
            /^[A-Z][a-z]{3,} [A-Z][a-z]{3,}$/.test(each.name),
        );
      if (!event) throw new Error('the seed has an upcoming event with a two-word name');
      return event;
    },
    messageWith: (text) => rig.page.locator('[data-testid=message]', { hasText: text }),
    async postFromBot(message) {
      const response = await fetch(`${rig.stack.sandbox.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ channel: 'CGENERAL01', ...message }),
      });
      expect(await response.json()).toMatchObject({ ok: true });
    },
    async watchStillEvent() {
      const now = Date.now();
      const event = rig
        .simulator()
        .catalog.events.find(
          (each) => each.status === 'published' && each.startsAtMs > now + 86_400_000 && each.capacity >= 100,
        );
      if (!event) throw new Error('no watchable event in the seed');
      // Its figures stand still but for the test's changes (the first events listed sell by the minute).
      rig.simulator().setMotion(event.id, 'still');
      await rig.page.click('[data-channel=CGENERAL01]');
      await rig.type(`/events watch ${event.id}: sold >= 90%`);
      const card = rig.page.locator('[data-testid=message]', { hasText: 'Watching:' }).last();
      await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
      return { event, card };
    },
  };
  return rig;
}
