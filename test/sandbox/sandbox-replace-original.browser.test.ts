import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// A later post to a command's response_url with `replace_original` replaces the message that
// response_url posted before, as in Slack: no "fetching" notice is left above the answer.
const rig = useSandboxInBrowser(() => launchChromium());

describe('a command answered in place on its response_url', () => {
  it('replaces the "fetching the report" notice with the promo confirmation, leaving one message', async () => {
    const promo = rig.simulator().catalog.promos.find((each) => {
      const event = rig.simulator().catalog.events.find((e) => e.id === each.eventId);
      return event?.status === 'published' && event.startsAtMs > Date.now();
    });
    if (!promo) throw new Error('the seed has an upcoming event with a promo code');
    await rig.type(`/events promo ${promo.eventId} ${promo.code} 42`);
    const asked = rig.page.locator('[data-testid=ephemeral]', { hasText: 'You are about to' });
    await expect.poll(() => asked.count(), { timeout: 15_000 }).toBe(1);
    // The notice was posted (the code is looked up in a report fetched for it), then replaced in place.
    const confirmation = rig.stack.sandbox.state.messages.find((m) =>
      JSON.stringify(m.blocks).includes('You are about to'),
    );
    expect(confirmation?.edited).toBe(true);
    await expect.poll(() => rig.page.locator('[data-testid=ephemeral]', { hasText: 'Fetching' }).count()).toBe(0);
    await expect.poll(() => rig.page.locator('[data-testid=message]', { hasText: 'Fetching' }).count()).toBe(0);
  });
});
