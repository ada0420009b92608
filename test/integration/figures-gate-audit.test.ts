import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import type { SlackCall } from '../helpers/fake-slack.js';
import { setPromoStep } from './figures-gate-rig.js';

/**
 * The promo audit keeps refusals apart from changes (issue 33, Deliver 8), on the real Bolt app:
 * a non-editor running "Set promo quantity" in a loop pushes out only refusals, never a change
 * that was made, even when the operator keeps few changes (`PROMO_AUDIT_KEEP=2`).
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Runs "Set promo quantity" as `runBy` would, and returns how it completed. */
const setPromo = (r: BotRig, runBy: string, inputs: Record<string, unknown>): Promise<SlackCall> =>
  setPromoStep(r, { run_by: { id: runBy, secret: 'slack-sets-this' }, ...inputs });

describe('the promo audit, with refusals in a loop', () => {
  it('keeps the change an editor made when a non-editor is refused more times than changes are kept', async () => {
    rig = await startBot({ env: { PROMO_AUDIT_KEEP: '2' } });
    const r = rig;
    const event = r.sim.catalog.events.find(
      (each) =>
        each.status === 'published' &&
        each.startsAtMs > Date.now() &&
        r.sim.catalog.promos.some((p) => p.eventId === each.id),
    );
    const promo = r.sim.catalog.promos.find((each) => each.eventId === event?.id);
    if (!event || !promo) throw new Error('the seed has an upcoming event with a promo code');

    const made = await setPromo(r, 'U0EDITOR', { event: event.id, promo: promo.code, quantity: 75 });
    expect(made.method).toBe('functions.completeSuccess');
    for (let i = 0; i < 4; i += 1) {
      const refused = await setPromo(r, 'U0NOBODY', { event: event.id, promo: promo.code, quantity: i });
      expect(refused.method).toBe('functions.completeError');
    }

    const audit = await r.bot.activity.promoAudit();
    expect(audit.filter((record) => record.outcome === 'refused')).toHaveLength(4);
    expect(audit.filter((record) => record.outcome === 'updated')).toEqual([
      expect.objectContaining({ userId: 'U0EDITOR', promoId: promo.id, quantity: 75 }),
    ]);
  });
});
