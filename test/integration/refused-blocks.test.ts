import { afterEach, describe, expect, it } from 'vitest';
import { type BotRig, startBot } from '../helpers/bot.js';
import { responsesTo, command as sendCommand } from '../helpers/bot-actions.js';

let rig: BotRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A published event: its report carries figures, and so a table. */
const anEvent = (r: BotRig) => {
  const event = r.sim.catalog.events.find((each) => each.status === 'published');
  if (!event) throw new Error('the seed has published events');
  return event;
};

const RICH = ['data_visualization', 'table'];
const hasRich = (blocks: unknown) =>
  Array.isArray(blocks) && blocks.some((block) => RICH.includes((block as { type?: string }).type ?? ''));

describe('a message whose charts and tables Slack refuses', () => {
  it('is a report in a channel all the same: edited again without them, saying so', async () => {
    rig = await startBot();
    const r = rig;
    r.slack.refusedBlockTypes.add('table').add('data_visualization');
    const event = anEvent(r);
    await sendCommand(r, `report ${event.id}`, 'U0EDITOR', 'C0OPS');
    const shown = await r.slack.waitFor(() =>
      r.slack.calls.find(
        (call) =>
          call.method === 'chat.update' &&
          JSON.stringify(call.args.blocks).includes('Tickets sold') &&
          !hasRich(call.args.blocks),
      ),
    );
    expect(JSON.stringify(shown.args.blocks)).toContain('The chart and table could not be shown here');
    // Refused once with them, then sent without: the message never stays at "fetching".
    const refused = r.slack.calls.filter((call) => call.method === 'chat.update' && hasRich(call.args.blocks));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    // Said once a process for each kind of message (this file is the only one whose Slack refuses blocks).
    expect(r.logs.filter((line) => line.includes('Slack refused a chart or table'))).toHaveLength(1);
  });

  it('is a private report all the same (a response URL answers 400)', async () => {
    rig = await startBot();
    const r = rig;
    r.slack.refusedBlockTypes.add('table').add('data_visualization');
    // A channel shared with a partner: the report is answered privately.
    r.slack.conversations.set('C0PARTNER', { is_shared: true, is_ext_shared: true });
    const event = anEvent(r);
    const { responseUrl } = await sendCommand(r, `report ${event.id}`, 'U0EDITOR', 'C0PARTNER');
    const shown = await r.slack.waitFor(() =>
      responsesTo(r, responseUrl).find(
        (call) => JSON.stringify(call.args.blocks).includes('Tickets sold') && !hasRich(call.args.blocks),
      ),
    );
    expect(JSON.stringify(shown.args.blocks)).toContain('The chart and table could not be shown here');
  });
});
