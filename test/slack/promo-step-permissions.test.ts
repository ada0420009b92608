import { createServer } from 'node:net';
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { homeView } from '../../src/render/home-view.js';
import { PromoEditors } from '../../src/slack/deps/promo-editors.js';
import { PromoStepPermissions } from '../../src/slack/listeners/workflow-steps/promo-step-permissions.js';
import type { BudgetSnapshot } from '../../src/ticketing/budget.js';
import { startBot } from '../helpers/bot.js';
import { ManualClock } from '../helpers/clocks.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';
import { strayMarkup } from '../helpers/stray-markup.js';

const TOKEN = fakeSlackToken('b', 'promo-step-permissions');
const SET = 'functions.distributions.permissions.set';

let slack: FakeSlack;
let stop: AbortController;
let logs: string[];
beforeEach(async () => {
  slack = await startFakeSlack();
  stop = new AbortController();
  logs = [];
});
afterEach(async () => {
  stop.abort();
  await slack.close();
});

/** The module under test on a clock that moves only when told: its refreshes run by hand (`refresh()`) or as the clock passes them. */
function permissions(
  ids: string[],
  clock = new ManualClock(Date.now()),
  app: { appId?: string; botId?: string } = { appId: 'A0APP' },
) {
  const logger = createLogger({ level: 'info', write: (line) => logs.push(line), secrets: [TOKEN] });
  const step = new PromoStepPermissions({
    editors: new PromoEditors(ids, { logger, clock }),
    logger,
    refreshMs: 300_000,
    signal: stop.signal,
    clock,
  });
  step.forApp(app);
  return step;
}

const client = (apiUrl: string) => new webApi.WebClient(TOKEN, { slackApiUrl: apiUrl, retryConfig: { retries: 0 } });
const warnings = () => logs.filter((line) => line.includes('"level":"warn"'));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('keeping Set promo quantity restricted to the promo editors', () => {
  it('sets the editors at start and reads them again every refresh on its clock, until shutdown', async () => {
    const clock = new ManualClock(Date.now());
    const step = permissions(['S0EDITORS'], clock);
    const sent = () => slack.calls.filter((call) => call.method === SET).map((call) => call.args);
    const web = client(slack.apiUrl);
    step.start(web);
    await vi.waitFor(() => expect(sent()).toHaveLength(1), { timeout: 10_000 });
    // The first pass is over once Slack's answer is read (a pass under way is joined, not doubled).
    await step.refresh(web);
    slack.groups.set('S0EDITORS', ['U0ANNA']);
    await clock.advance(299_000);
    expect(sent()).toHaveLength(1);
    await clock.advance(1_000);
    await vi.waitFor(() => expect(sent()).toHaveLength(2), { timeout: 10_000 });
    expect(sent()[1]).toMatchObject({ permission_type: 'named_entities', user_ids: 'U0ANNA' });
    stop.abort();
    slack.groups.set('S0EDITORS', ['U0BEN']);
    await clock.advance(600_000);
    expect(clock.nextAt()).toBeUndefined();
    expect(sent()).toHaveLength(2);
  });

  it('logs a refusal once per cause, again when the cause changes, and forgets it once Slack accepts', async () => {
    const step = permissions(['U0EDITOR']);
    const web = client(slack.apiUrl);
    slack.failNext(SET, 'not_allowed', 2);
    await step.refresh(web);
    await step.refresh(web);
    expect(warnings()).toHaveLength(1);
    expect(step.problemFor('U0EDITOR')).toEqual({ error: 'not_allowed', reached: true, retryEveryMs: 300_000 });
    expect(step.problemFor('U0NOBODY')).toBeUndefined();

    slack.failNext(SET, 'invalid_auth');
    await step.refresh(web);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toContain('invalid_auth');

    await step.refresh(web);
    expect(step.problemFor('U0EDITOR')).toBeUndefined();
    await step.refresh(web);
    // Taken: the same editors are not sent again.
    expect(slack.calls.filter((call) => call.method === SET)).toHaveLength(4);
  });

  it('logs a Slack it cannot reach once, with the transport’s code and no token, and never rejects', async () => {
    const step = permissions(['U0EDITOR']);
    const web = client(`http://127.0.0.1:${await closedPort()}/api/`);
    await expect(step.refresh(web)).resolves.toBeUndefined();
    await expect(step.refresh(web)).resolves.toBeUndefined();
    const problem = step.problemFor('U0EDITOR');
    expect(problem).toMatchObject({ reached: false, error: 'ECONNREFUSED' });
    expect(warnings().filter((line) => line.includes(SET))).toHaveLength(1);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('names the app’s collaborators when there are no editors, and user ids once there are', async () => {
    const step = permissions(['S0EDITORS']);
    const web = client(slack.apiUrl);
    await step.refresh(web);
    slack.groups.set('S0EDITORS', ['U0BEN', 'U0ANNA']);
    await step.refresh(web);
    const sent = slack.calls.filter((call) => call.method === SET).map((call) => call.args);
    expect(sent).toEqual([
      { function_callback_id: 'set_promo_quantity', function_app_id: 'A0APP', permission_type: 'app_collaborators' },
      {
        function_callback_id: 'set_promo_quantity',
        function_app_id: 'A0APP',
        permission_type: 'named_entities',
        user_ids: 'U0ANNA,U0BEN',
      },
    ]);
  });

  it('names the step by its callback id and its app’s id, asking Slack for the app once when auth.test gave none', async () => {
    const step = permissions(['U0EDITOR'], new ManualClock(Date.now()), { botId: 'BBOT' });
    const web = client(slack.apiUrl);
    await step.refresh(web);
    await step.refresh(web);
    expect(slack.calls.filter((call) => call.method === 'bots.info').map((call) => call.args.bot)).toEqual(['BBOT']);
    expect(slack.calls.find((call) => call.method === SET)?.args).toMatchObject({
      function_callback_id: 'set_promo_quantity',
      function_app_id: 'A0001',
    });
    expect(step.problemFor('U0EDITOR')).toBeUndefined();
  });

  it('is named at start by the app id Slack gave the bot (auth.test), by the real bot', async () => {
    const rig = await startBot({});
    try {
      const set = await rig.slack.waitFor(() => rig.slack.calls.find((call) => call.method === SET));
      expect(set.args).toMatchObject({ function_callback_id: 'set_promo_quantity', function_app_id: 'A0001' });
      expect(rig.slack.calls.filter((call) => call.method === 'bots.info')).toEqual([]);
    } finally {
      await rig.close();
    }
  });

  it('sends nothing and says why when Slack names no app for the bot', async () => {
    slack.failNext('bots.info', 'bot_not_found');
    const step = permissions(['U0EDITOR'], new ManualClock(Date.now()), { botId: 'BGONE' });
    await step.refresh(client(slack.apiUrl));
    expect(slack.calls.filter((call) => call.method === SET)).toEqual([]);
    expect(step.problemFor('U0EDITOR')).toMatchObject({ error: 'app_id_unknown', reached: true });
    expect(warnings().join('\n')).toContain('app_id_unknown');
  });
});

describe('the App Home line about the step', () => {
  const BUDGET: BudgetSnapshot = {
    limit: 3,
    remaining: 3,
    resetAt: undefined,
    pausedUntil: undefined,
    inFlight: 0,
    queued: { interactive: 0, background: 0 },
    reserve: 0,
    lastObservation: undefined,
    rateLimitedResponses: 0,
  };
  const home = (error: string, reached: boolean) =>
    JSON.stringify(
      homeView({
        events: [],
        activity: { reports: [], promoChanges: [] },
        budget: BUDGET,
        now: Date.now(),
        promoStepRestriction: { error, reached, retryEveryMs: 300_000 },
      }),
    );

  it('says why and what an admin can do, by Slack’s answer', () => {
    expect(home('not_allowed', true)).toContain('org_deploy_enabled');
    expect(home('invalid_auth', true)).toContain('SLACK_BOT_TOKEN');
    expect(home('function_not_found', true)).toContain('manifest.yml');
    expect(home('app_id_unknown', true)).toContain('bots.info');
    expect(home('ECONNREFUSED', false)).toContain('could not be reached');
    expect(home('not_allowed', true)).toContain('tries again every 5 min');
  });

  it('shows a hostile error code as text', () => {
    for (const error of ['<!channel>', 'constructor', '`<@U0123>`']) {
      const view = JSON.parse(home(error, true)) as unknown;
      expect(strayMarkup(view)).toEqual([]);
    }
  });
});
