import { afterEach, describe, expect, it } from 'vitest';
import { PROMO_CONFIRM_ACTION } from '../../src/render/promo-blocks.js';
import type { BotRig } from '../helpers/bot.js';
import { answerTo, buttonValue, click, nthResponse, openHome } from '../helpers/bot-actions.js';
import { command, GUEST, onOneClock, withPromo } from './figures-gate-rig.js';

/**
 * The person asks too (issue 33), on the paths answered to them alone: a promo confirmation names
 * the code's quantity now and its redemptions, App Home the promo changes' quantities and the
 * forecasts' track record; a guest editor sees none of them. On the real Bolt app.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** What a promo confirmation or App Home says when it shows the code's figures now. */
const PROMO_FIGURES = /allows \*[\d,]+\* now|are redeemed|is redeemed|\(was [\d,]+\)|[\d,]+ → [\d,]+/;

/** Proposes and confirms a promo change as `user`; what they read at each step. */
async function changePromo(r: BotRig, user: string, quantity: number) {
  const { event, promo } = withPromo(r);
  const proposed = await command(r, `promo ${event.id} ${promo.code} ${quantity}`, 'C0001', user);
  const proposal = await answerTo(r, proposed);
  const done = await click(r, PROMO_CONFIRM_ACTION, buttonValue(proposal, PROMO_CONFIRM_ACTION), user, {
    channelId: 'C0001',
  });
  const outcome = await nthResponse(r, done.responseUrl);
  expect(JSON.stringify(outcome)).toMatch(/now allows/);
  return { proposal: JSON.stringify(proposal), outcome: JSON.stringify(outcome) };
}

describe('a promo editor who is a guest', () => {
  it("is not shown the code's quantity now nor its redemptions, in the confirmation, the outcome or App Home", async () => {
    const { r } = await onOneClock();
    rig = r;
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.groups.set('S0EDITORS', [GUEST]);

    // A member editor reads them: the subject, shown where the rule allows it.
    const member = await changePromo(r, 'U0EDITOR', 140);
    expect(member.proposal).toMatch(PROMO_FIGURES);
    expect(member.outcome).toMatch(PROMO_FIGURES);
    expect(await openHome(r, 'U0EDITOR')).toMatch(PROMO_FIGURES);

    const guest = await changePromo(r, GUEST, 150);
    expect(guest.proposal).not.toMatch(PROMO_FIGURES);
    // What they asked for is theirs to read.
    expect(guest.proposal).toContain('150');
    expect(guest.outcome).not.toMatch(PROMO_FIGURES);
    const home = await openHome(r, GUEST);
    expect(home).toContain('Your recent promo changes');
    expect(home).not.toMatch(PROMO_FIGURES);
    expect(home).toContain('Quantities and forecasts are left out');
    expect(home).toContain('not shown to guests');
  });
});

describe('the forecast track record asked for with /events forecast accuracy', () => {
  it('is shown to a member and held back from a guest, who is told why', async () => {
    const { r } = await onOneClock();
    rig = r;
    r.slack.people.set(GUEST, { is_restricted: true });

    const member = JSON.stringify(await answerTo(r, await command(r, 'forecast accuracy', 'C0001', 'U0MEMBER')));
    expect(member).toContain('Forecast accuracy');

    const guest = JSON.stringify(await answerTo(r, await command(r, 'forecast accuracy', 'C0001', GUEST)));
    expect(guest).not.toContain('Forecast accuracy');
    expect(guest).toContain('not shown to guests');
  });
});
