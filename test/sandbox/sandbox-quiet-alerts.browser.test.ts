import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// An alert's Snooze and Mute for me controls, as the sandbox page draws them and a person clicks
// them in a real Chromium (issue 37): the bot answers privately, and the card says the snooze.
const rig = useSandboxInBrowser(() => launchChromium());
const { simulator } = rig;

describe('quiet alerts in the sandbox', () => {
  it('shows Snooze and Mute for me on an alert, and both work when clicked', async () => {
    const { event, card } = await rig.watchStillEvent();
    simulator().setFigures(event.id, { ticketsSold: Math.floor(event.capacity * 0.95) });
    await expect
      .poll(async () => (await rig.stack.bot.watches.turn()).kind, { timeout: 20_000, interval: 50 })
      .toBe('checked');

    // The threshold's alert is broadcast: in the channel, with its controls.
    const alert = rig.page.locator('[data-testid=message]', { hasText: '% sold (watching for 90%)' }).last();
    await expect.poll(() => alert.count(), { timeout: 10_000 }).toBe(1);
    for (const name of ['Snooze 1 hour', 'Snooze 1 day', 'Snooze until next threshold', 'Mute for me'])
      expect(await alert.getByRole('button', { name }).count(), name).toBe(1);

    await alert.getByRole('button', { name: 'Mute for me' }).click();
    const muted = rig.page.locator('[data-testid=ephemeral]', { hasText: 'no longer mentions or messages you' });
    await expect.poll(() => muted.count(), { timeout: 10_000 }).toBe(1);

    await alert.getByRole('button', { name: 'Snooze 1 hour' }).click();
    const snoozed = rig.page.locator('[data-testid=ephemeral]', { hasText: 'snoozed until about' });
    await expect.poll(() => snoozed.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => card.innerText(), { timeout: 10_000 }).toContain('Alerts snoozed until about');

    // Both stored on the watch, for every replica and restart.
    const [watch] = await rig.stack.bot.watches.find({ channel: 'CGENERAL01' });
    expect(watch?.quiet?.snoozedUntil).toBeGreaterThan(Date.now());
    expect(watch?.quiet?.muted).toEqual([watch?.setBy]);
  });
});
