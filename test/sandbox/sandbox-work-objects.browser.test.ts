import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// Event links as Work Objects in the sandbox, in a real Chromium: the card under the message, and
// the flexpane a click opens for the signed-in person, filled by the real bot.
const rig = useSandboxInBrowser(() => launchChromium());
const { type, nameableEvent } = rig;

/**
 * Clicks a Work Object card until its flexpane shows figures: the first opening queues a report
 * when none is at hand, a later one shows it (no timing asserted).
 */
async function openUntilFigures(card: Locator, flexpane: Locator) {
  await expect
    .poll(
      async () => {
        await card.click();
        await rig.page.waitForTimeout(200);
        return flexpane.innerText();
      },
      { timeout: 12_000 },
    )
    .toContain('Tickets sold');
}

describe('Work Objects in the sandbox', () => {
  it('draws the card with no figures, and opens its flexpane with the figures for the person who clicked', async () => {
    await rig.stack.bot.catalog.snapshot();
    const event = nameableEvent();
    await rig.page.click('[data-channel=CGENERAL01]');
    await type(`Shall we? https://tickets.example.com/e/${event.id}`);
    const posted = rig.page.locator('[data-testid=message]', { hasText: 'Shall we?' }).last();
    const card = posted.locator('[data-testid=work-object]');
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
    const cardText = await card.innerText();
    expect(cardText).toContain(event.name);
    expect(cardText).toContain('On sale');
    expect(cardText).toContain(event.timezone);
    expect(cardText).not.toMatch(/sold|revenue|capacity|promo/i);

    // The flexpane: the bot answers at once; with no report at hand it queues one, and the next
    // opening shows its figures (no timing asserted: opened again until they are there).
    const flexpane = rig.page.locator('[data-testid=flexpane]');
    await card.click();
    await expect.poll(() => flexpane.isVisible(), { timeout: 10_000 }).toBe(true);
    await openUntilFigures(card, flexpane);
    const panel = await flexpane.innerText();
    expect(panel).toContain(event.name);
    expect(panel).toMatch(/As of .* UTC, read/);
    // Ada edits promo codes: her panel offers the promo form, which leads to the confirmation.
    await flexpane.getByRole('button', { name: 'Change promo quantity' }).click();
    const modal = rig.page.locator('[data-testid=modal]');
    await expect.poll(() => modal.count(), { timeout: 10_000 }).toBe(1);
    // The promo form with the event picked, as an event card's Promo button opens it.
    await expect.poll(() => modal.innerText()).toContain('Promo code');
    await expect.poll(() => modal.locator('[data-kind=external_select]').inputValue()).toContain(event.name);
    await modal.getByRole('button', { name: 'Cancel' }).click();
    await flexpane.locator('[data-flexpane-close]').click();
    await expect.poll(() => flexpane.isVisible()).toBe(false);
  });

  it('opens the flexpane for the current sandbox user: Ravi gets figures but no promo button', async () => {
    const event = nameableEvent();
    await rig.page.selectOption('[data-testid=user-switcher]', 'UVIEWER02');
    try {
      await rig.page.click('[data-channel=CGENERAL01]');
      await type(`Ravi here https://tickets.example.com/e/${event.id}`);
      const card = rig.page
        .locator('[data-testid=message]', { hasText: 'Ravi here' })
        .last()
        .locator('[data-testid=work-object]');
      await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(1);
      const flexpane = rig.page.locator('[data-testid=flexpane]');
      await openUntilFigures(card, flexpane);
      expect(await flexpane.getByRole('button', { name: 'Report' }).count()).toBe(1);
      expect(await flexpane.getByRole('button', { name: 'Change promo quantity' }).count()).toBe(0);
      await flexpane.locator('[data-flexpane-close]').click();
    } finally {
      await rig.page.selectOption('[data-testid=user-switcher]', 'UEDITOR01');
    }
  });
});
