import { describe, expect, it } from 'vitest';
import { launchChromium } from './launch-chromium.js';
import { useSandboxInBrowser } from './sandbox-in-browser.js';

// The sandbox's commands, driven as a person would in a real Chromium. (The modals and what the
// page draws are in sandbox-page.test.ts: the two files run side by side, each on its own sandbox.)
const rig = useSandboxInBrowser(() => launchChromium());
const { type, simulator } = rig;
const lastMessage = () => rig.page.locator('#messages .message').last();

describe('the sandbox in a real browser', () => {
  it('lists upcoming events privately and pages with Next in place', async () => {
    await type('/events list');
    const list = rig.page.locator('[data-testid=ephemeral]', { hasText: 'Upcoming events' }).last();
    await expect.poll(() => list.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => list.innerText()).toContain('Only visible to you');
    await list.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => list.innerText(), { timeout: 10_000 }).toContain('Upcoming events (page 2)');
  });

  it('shows one event card, with times in the event zone and the reader zone', async () => {
    const event = simulator().catalog.events.find((each) => each.startDate.includes('T'));
    await type(`/events show ${event?.id}`);
    await expect.poll(() => lastMessage().innerText(), { timeout: 10_000 }).toContain(event?.timezone ?? '?');
    await expect.poll(() => lastMessage().innerText()).toContain('Your time');
  });

  it('shows each report where it was asked, with the full JSON in a thread', async () => {
    const [first, second] = simulator().catalog.events;
    await type(`/events report ${first?.id}`);
    await type(`/events report ${second?.id}`);
    // Whether the second waits ("queued: position 1") depends on when the first is fetched, which
    // the page cannot force; the queue's words are tested on the Bolt app (slack-bot.test.ts).
    const reports = rig.page.locator('[data-testid=message]', { hasText: 'Tickets sold' });
    await expect.poll(() => reports.count(), { timeout: 20_000 }).toBe(2);
    await reports.first().locator('.thread-link').click();
    const file = rig.page.locator('#thread [data-testid=file]');
    await expect.poll(() => file.innerText()).toContain('.json');
    // The file opens, as in Slack: its content, the report as JSON.
    await file.getByRole('button').first().click();
    const viewer = rig.page.locator('[data-testid=file-viewer]');
    await expect.poll(() => viewer.count()).toBe(1);
    const shown = JSON.parse(await viewer.locator('pre').innerText()) as Record<string, unknown>;
    expect(JSON.stringify(shown)).toContain(String(first?.id));
    await viewer.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => viewer.count()).toBe(0);
    await rig.page.click('#close-thread');
  });

  it('asks to confirm a promo change, confirms with its one button, and announces it', async () => {
    const promo = simulator().catalog.promos[0];
    await type(`/events promo ${promo?.eventId} ${promo?.id} 42`);
    const asked = rig.page.locator('[data-testid=ephemeral]', { hasText: 'You are about to' }).last();
    await expect.poll(() => asked.count(), { timeout: 10_000 }).toBe(1);
    // The same message is replaced in place: follow it by its timestamp.
    const confirmation = rig.page.locator(`[data-ts="${await asked.getAttribute('data-ts')}"]`);
    // The message is the one confirmation: no second dialog behind its button.
    await confirmation.getByRole('button', { name: 'Set to 42' }).click();
    await expect.poll(() => confirmation.innerText(), { timeout: 10_000 }).toContain('now allows 42');
    await expect.poll(() => rig.page.locator('[data-testid=message]', { hasText: 'set promo code' }).count()).toBe(1);
    expect(promo?.quantity).toBe(42);
  });

  it('refuses a promo change from someone who is not an editor', async () => {
    const promo = simulator().catalog.promos[1];
    await rig.page.selectOption('[data-testid=user-switcher]', 'UVIEWER02');
    await type(`/events promo ${promo?.eventId} ${promo?.id} 5`);
    const refusal = rig.page.locator('[data-testid=ephemeral]', { hasText: 'Only promo editors' });
    await expect.poll(() => refusal.count(), { timeout: 10_000 }).toBe(1);
    await rig.page.selectOption('[data-testid=user-switcher]', 'UEDITOR01');
  });

  it('turns a digest on and sends it with the Send digest now button', async () => {
    await rig.page.click('[data-channel=COPS000002]');
    await type('/events digest on 08:00 --days 3');
    await expect
      .poll(() => rig.page.locator('[data-testid=message]', { hasText: 'set up a daily digest' }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await rig.page.click('[data-testid=digest-now]');
    const digest = rig.page.locator('[data-testid=message]', { hasText: 'Events the next 3 days' });
    await expect.poll(() => digest.count(), { timeout: 20_000 }).toBe(1);
  });

  it('answers a command name the app does not have as Slack does, without sending it to the bot', async () => {
    await rig.page.click('[data-channel=CGENERAL01]');
    await type('/event list');
    const answer = rig.page.locator('[data-testid=ephemeral]', { hasText: 'is not a valid command' });
    await expect.poll(() => answer.count(), { timeout: 10_000 }).toBe(1);
    expect(await answer.innerText()).toContain('/event');
    expect(await answer.innerText()).toContain('Slackbot');
  });

  it('shows the App Home with events, recent promo changes and the budget', async () => {
    await rig.page.click('[data-testid=app-home]');
    const home = rig.page.locator('[data-testid=home]');
    await expect.poll(() => home.innerText(), { timeout: 10_000 }).toContain('Your recent promo changes');
    await expect.poll(() => home.innerText()).toContain('Ticketing API budget');
    await expect.poll(() => home.innerText()).toContain('→ 42');
  });
});
