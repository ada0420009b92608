import { afterEach, describe, expect, it } from 'vitest';
import { BOT_TOKEN, type BotRig, startBot } from '../helpers/bot.js';
import { command, nthResponse, openHome } from '../helpers/bot-actions.js';
import type { SlackCall } from '../helpers/fake-slack.js';

const SET = 'functions.distributions.permissions.set';
/** Refreshes of the editors every 50 ms (a deployment waits minutes). */
const FAST = { compose: { promoStepRefreshMs: 50 } };

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const setCalls = (r: BotRig) => r.slack.calls.filter((call) => call.method === SET);
const groupReads = (r: BotRig) => r.slack.calls.filter((call) => call.method === 'usergroups.users.list');
/** The user ids a call named, in order (Slack takes them comma-separated). */
const userIds = (call: SlackCall | undefined): string[] | undefined =>
  typeof call?.args.user_ids === 'string' ? call.args.user_ids.split(',') : undefined;

/** Lines the bot logged that mention `text`, leaving out the Web API client's debug trace of each answer. */
const said = (r: BotRig, text: string) =>
  r.logs.filter((line) => line.includes(text) && !line.includes('"level":"debug"'));

/** Waits until `count` more refreshes of the editors have read the user group. */
async function refreshes(r: BotRig, count: number): Promise<void> {
  const target = groupReads(r).length + count;
  await r.slack.waitFor(() => (groupReads(r).length >= target ? true : undefined));
}

describe('Set promo quantity is offered in Workflow Builder to promo editors only', () => {
  it('at start, restricts the step to the editors, user groups expanded', async () => {
    rig = await startBot();
    const first = await rig.slack.waitFor(() => setCalls(rig as BotRig)[0]);
    expect(first.args).toMatchObject({ function_callback_id: 'set_promo_quantity', permission_type: 'named_entities' });
    // The group has no members yet: the editor named by id alone.
    expect(userIds(first)).toEqual(['U0EDITOR']);
    // With the bot's own token, not a workflow token.
    expect(first.token).toBe(BOT_TOKEN);

    rig.slack.groups.set('S0EDITORS', ['U0BEN', 'U0ANNA', 'U0EDITOR']);
    await rig.restart();
    const again = await rig.slack.waitFor(() => setCalls(rig as BotRig)[1]);
    expect(userIds(again)).toEqual(['U0ANNA', 'U0BEN', 'U0EDITOR']);
  });

  it('restricts it again when a user group’s members change, and only then', async () => {
    rig = await startBot(FAST);
    const r = rig;
    r.slack.groups.set('S0EDITORS', ['U0ANNA']);
    await r.slack.waitFor(() => setCalls(r).find((call) => userIds(call)?.includes('U0ANNA')));
    await refreshes(r, 3);
    // The same editors at each refresh: Slack is not asked again.
    expect(setCalls(r).filter((call) => userIds(call)?.includes('U0ANNA'))).toHaveLength(1);

    r.slack.groups.set('S0EDITORS', ['U0BEN']);
    const changed = await r.slack.waitFor(() => setCalls(r).find((call) => userIds(call)?.includes('U0BEN')));
    expect(userIds(changed)).toEqual(['U0BEN', 'U0EDITOR']);
    const calls = setCalls(r).length;
    await refreshes(r, 3);
    expect(setCalls(r)).toHaveLength(calls);
  });

  it('keeps the editors it knew when a user group cannot be read, rather than dropping them', async () => {
    rig = await startBot(FAST);
    const r = rig;
    r.slack.groups.set('S0EDITORS', ['U0ANNA']);
    await r.slack.waitFor(() => setCalls(r).find((call) => userIds(call)?.includes('U0ANNA')));
    const calls = setCalls(r).length;
    r.slack.failNext('usergroups.users.list', 'ratelimited', 3);
    await refreshes(r, 5);
    expect(setCalls(r)).toHaveLength(calls);
  });

  it('with no editors at all, leaves the step to the app’s collaborators (Slack refuses an empty list)', async () => {
    rig = await startBot({ env: { PROMO_EDITORS: '' } });
    const first = await rig.slack.waitFor(() => setCalls(rig as BotRig)[0]);
    expect(first.args).toMatchObject({
      function_callback_id: 'set_promo_quantity',
      permission_type: 'app_collaborators',
    });
    expect(first.args.user_ids).toBeUndefined();
  });

  it('logs a refusal once, shows it on App Home to editors only, and keeps running', async () => {
    rig = await startBot(FAST);
    const r = rig;
    r.slack.groups.set('S0EDITORS', ['U0ANNA']);
    r.slack.failNext(SET, 'not_allowed', 1_000);
    // Tried again at each refresh (an admin may fix the cause), logged only the first time.
    await r.slack.waitFor(() => (setCalls(r).length >= 4 ? true : undefined));
    const logged = said(r, 'not_allowed');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('"level":"warn"');
    expect(logged[0]).toContain('set_promo_quantity');
    expect(r.logs.join('\n')).not.toContain(BOT_TOKEN);

    for (const editor of ['U0EDITOR', 'U0ANNA']) {
      const shown = await openHome(r, editor);
      expect(shown).toContain('could not be restricted to promo editors');
      expect(shown).toContain('not_allowed');
      expect(shown).toContain('admin');
    }
    const other = await openHome(r, 'U0NOBODY');
    expect(other).not.toContain('could not be restricted');
    expect(other).not.toContain('not_allowed');

    // No crash: the bot still answers.
    const help = await command(r, 'help');
    expect(help.status).toBe(200);
    expect(JSON.stringify(await nthResponse(r, help.responseUrl))).toContain('/events');
  });

  it('logs a different refusal again, and clears the App Home line once Slack accepts', async () => {
    rig = await startBot(FAST);
    const r = rig;
    r.slack.failNext(SET, 'invalid_auth', 2);
    await r.slack.waitFor(() => (setCalls(r).length >= 3 ? true : undefined));
    expect(said(r, 'invalid_auth')).toHaveLength(1);
    await refreshes(r, 2);
    const calls = setCalls(r).length;
    await refreshes(r, 2);
    // Accepted at the third try: nothing more to ask.
    expect(setCalls(r)).toHaveLength(calls);
    expect(said(r, 'is restricted to the promo editors')).toHaveLength(1);
    expect(await openHome(r, 'U0EDITOR')).not.toContain('could not be restricted');
  });
});
