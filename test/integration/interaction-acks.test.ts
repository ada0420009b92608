import { afterEach, describe, expect, it } from 'vitest';
import { isListedUpcoming } from '../../src/catalog/is-upcoming.js';
import { EVENT_PICKER_ACTION, FIELDS, REPORT_MODAL } from '../../src/render/modal-views.js';
import type { SimulatorOptions } from '../../src/simulator/server.js';
import { type BotRig, SIGNING_SECRET, startBot } from '../helpers/bot.js';
import { command, type Json } from '../helpers/bot-actions.js';
import {
  blockSuggestionBody,
  eventBody,
  postSigned,
  postSignedJson,
  viewSubmissionBody,
} from '../helpers/slack-requests.js';

/*
 * Slack gives every interaction 3 s for its answer: each is answered from what is in memory within
 * 1 s, however long the event catalog's crawl takes (cold start, another replica's turn).
 */

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const UNLISTED = 'evt_00000000-0000-4000-8000-000000000000';
const sent = (r: BotRig, method: string) => r.slack.calls.filter((call) => call.method === method);
const reportFetches = (r: BotRig) => r.sim.stats().log.filter((entry) => /\/report$/.test(entry.path));
const reportMessages = (r: BotRig) =>
  r.slack.calls.filter(
    (call) => call.method === 'chat.update' && JSON.stringify(call.args.blocks).includes('Tickets sold'),
  );

/** A bot whose service answers slowly, its first crawl (as at start-up) under way. */
async function startCrawling(sim: SimulatorOptions): Promise<BotRig> {
  const r = await startBot({ sim });
  r.bot.catalog.start();
  await expect.poll(() => r.bot.catalog.crawls).toBe(1);
  expect(r.bot.catalog.current()).toBeUndefined();
  return r;
}

/** Opens the report modal with `/events report`, as a person does; its private metadata. */
async function openReportModal(r: BotRig): Promise<string> {
  await command(r, 'report');
  const opened = await r.slack.waitFor(() => sent(r, 'views.open')[0]);
  return String((opened.args.view as Json).private_metadata);
}

const submitReport = (r: BotRig, privateMetadata: string, eventId: string) =>
  postSigned(
    r.url,
    SIGNING_SECRET,
    viewSubmissionBody({
      callbackId: REPORT_MODAL,
      privateMetadata,
      values: {
        [FIELDS.event.block]: {
          [FIELDS.event.action]: { type: 'external_select', selected_option: { value: eventId } },
        },
      },
    }),
  );

describe('interactions answer within 1 s while the catalog is crawled', () => {
  it('closes the report modal at once during the first crawl, and queues the report exactly once', async () => {
    // Two pages at 1.2 s each: the crawl outlasts the second the answer has.
    rig = await startCrawling({ latencyMs: 1_200 });
    const event = rig.sim.catalog.events[0];
    if (!event) throw new Error('no event');
    const metadata = await openReportModal(rig);

    const submitted = await submitReport(rig, metadata, event.id);
    expect(submitted.status).toBe(200);
    expect(submitted.ackMs).toBeLessThan(1_000);
    expect(submitted.text).toBe('');
    // Answered: the calls that follow need not be slow (the page in flight still takes 1.2 s).
    rig.sim.knobs.latencyMs = 0;

    const r = rig;
    const final = await r.slack.waitFor(() => reportMessages(r)[0], 20_000);
    expect(final.args.channel).toBe('C0001');
    // Whatever else the crawl finishes, the one submission made one request and one message.
    await expect.poll(() => r.bot.catalog.current(), { timeout: 15_000 }).toBeDefined();
    expect(reportFetches(r)).toHaveLength(1);
    expect(r.sim.stats().admittedReports).toBe(1);
    expect(sent(r, 'chat.postMessage')).toHaveLength(1);
    expect(reportMessages(r)).toHaveLength(1);
  }, 40_000);

  it('refuses an event missing from a fresh catalog in the modal itself, with no request', async () => {
    rig = await startBot();
    await rig.bot.catalog.snapshot();
    const metadata = await openReportModal(rig);
    const refused = await submitReport(rig, metadata, UNLISTED);
    expect(refused.ackMs).toBeLessThan(1_000);
    expect(JSON.parse(refused.text)).toEqual({
      response_action: 'errors',
      errors: { [FIELDS.event.block]: 'That event is no longer listed.' },
    });
    expect(reportFetches(rig)).toHaveLength(0);
  });

  it('closes the modal for an event picked before the first crawl, then says privately it is not listed', async () => {
    // A crawl shorter than the wait for the event's name: the answer is known before any report is asked.
    rig = await startCrawling({ latencyMs: 400 });
    const metadata = await openReportModal(rig);
    const submitted = await submitReport(rig, metadata, UNLISTED);
    expect(submitted.ackMs).toBeLessThan(1_000);
    expect(submitted.text).toBe('');
    const r = rig;
    const told = await r.slack.waitFor(() => sent(r, 'chat.postEphemeral')[0], 10_000);
    expect(told.args).toMatchObject({ channel: 'C0001', user: 'U0EDITOR' });
    expect(String(told.args.text)).toContain('No event matches');
    expect(reportFetches(r)).toHaveLength(0);
  });

  it('answers the event picker at once during the first crawl, then from the catalog in memory', async () => {
    rig = await startCrawling({ latencyMs: 1_200 });
    const typeahead = () =>
      postSigned(
        (rig as BotRig).url,
        SIGNING_SECRET,
        blockSuggestionBody({ actionId: EVENT_PICKER_ACTION, blockId: FIELDS.event.block, value: '' }),
      );
    const cold = await typeahead();
    expect(cold.ackMs).toBeLessThan(1_000);
    expect(JSON.parse(cold.text)).toEqual({ options: [] });
    rig.sim.knobs.latencyMs = 0;

    const r = rig;
    await expect.poll(() => r.bot.catalog.current(), { timeout: 15_000 }).toBeDefined();
    const warm = await typeahead();
    expect(warm.ackMs).toBeLessThan(1_000);
    expect((JSON.parse(warm.text) as { options: unknown[] }).options.length).toBeGreaterThan(0);
  }, 30_000);

  it('publishes the home tab at once during the first crawl, then again with the events', async () => {
    rig = await startCrawling({ latencyMs: 1_200 });
    const openedAt = Date.now();
    const result = await postSignedJson(
      rig.url,
      SIGNING_SECRET,
      eventBody({ type: 'app_home_opened', user: 'U0EDITOR', channel: 'D0001', tab: 'home', event_ts: '1.1' }),
    );
    expect(result.status).toBe(200);
    const r = rig;
    const first = await r.slack.waitFor(() => sent(r, 'views.publish')[0]);
    expect(first.at - openedAt).toBeLessThan(1_000);
    expect(JSON.stringify(first.args.view)).toContain('still loading');
    r.sim.knobs.latencyMs = 0;

    const second = await r.slack.waitFor(() => sent(r, 'views.publish')[1], 15_000);
    const now = Date.now();
    // The first the home tab lists: not ended, and not cancelled (whatever the time of day).
    const next = r.bot.catalog.current()?.events.find((event) => isListedUpcoming(event, now));
    expect(JSON.stringify(second.args.view)).toContain(next?.id);
    expect(JSON.stringify(second.args.view)).not.toContain('still loading');
  }, 30_000);
});
