import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { BotRig } from '../helpers/bot.js';
import { SIGNING_SECRET } from '../helpers/bot.js';
import { answerTo } from '../helpers/bot-actions.js';
import { functionExecutedBody, postSignedJson } from '../helpers/slack-requests.js';
import { command, GUEST, onOneClock, withPromo } from './figures-gate-rig.js';

/**
 * Two side doors an adversarial review found (issue 33's one gate), on the real Bolt app: setting a
 * watch answers with what the event's report holds (its promo codes, which conditions already
 * crossed), and a workflow step's "post in" a channel the bot is not in was taken for internal.
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('setting a watch as a guest', () => {
  it('is refused before any report is read, so its answer names no promo code nor what crossed', async () => {
    const { r } = await onOneClock();
    rig = r;
    r.slack.people.set(GUEST, { is_restricted: true });
    const { event, promo } = withPromo(r);
    const reportsBefore = r.sim.stats().admittedReports;

    const asked = await command(r, `watch ${event.id}: grossRevenue >= 1 --except sold --me`, 'C0001', GUEST);
    const said = JSON.stringify(await answerTo(r, asked));

    expect(said).not.toContain(promo.code);
    expect(said).not.toMatch(/Already crossed|Added/);
    expect(said).toContain('not shown to guests');
    expect(r.sim.stats().admittedReports).toBe(reportsBefore);
  });
});

describe('the "Get event report" step posting in a channel the bot is not in', () => {
  it('fails with a sentence and gives no figures: who reads that channel cannot be checked', async () => {
    const { r } = await onOneClock();
    rig = r;
    r.slack.people.set(GUEST, { is_restricted: true });
    r.slack.conversations.set('C0PUBLIC', { is_member: false });
    r.slack.members.set('C0PUBLIC', ['U0RUNNER', GUEST]);
    const { event } = withPromo(r);
    const execution = `Fx${randomUUID().slice(0, 10)}`;
    const answer = await postSignedJson(
      r.url,
      SIGNING_SECRET,
      functionExecutedBody(
        'get_event_report',
        { event: event.id, run_by: { id: 'U0RUNNER', secret: 'x' }, post_in: 'C0PUBLIC' },
        execution,
        ['xwfp', '-', 'fake-token'].join(''),
      ),
    );
    expect(answer.status).toBe(200);
    const done = await r.slack.waitFor(
      () =>
        r.slack.calls.find(
          (call) => call.method.startsWith('functions.complete') && call.args.function_execution_id === execution,
        ),
      20_000,
    );
    expect(done.method).toBe('functions.completeError');
    expect(JSON.stringify(done.args)).not.toMatch(/Tickets sold|Gross revenue|redeemed/);
    expect(JSON.stringify(done.args)).toContain('not in');
  });
});
