import type { Browser, Page } from 'playwright-core';

/**
 * A page of `browser` on the sandbox at `url`, at the size the browser suites use; an error thrown
 * on the page fails the test rather than passing unseen in the browser's console.
 */
export async function openPage(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(url);
  return page;
}
