import { describe, expect, it } from 'vitest';
import type { Shown } from '../../src/figures/may-show-figures.js';
import { LIMITS, type SlackMessage } from '../../src/render/block-kit.js';
import { escapeText } from '../../src/render/mrkdwn.js';
import { watchAlertMessage } from '../../src/render/watch-alert-blocks.js';
import { watchCardMessage } from '../../src/render/watch-card-blocks.js';
import { watchListMessage } from '../../src/render/watch-list-blocks.js';
import { watchConfirmationMessage, watchPausedMessage } from '../../src/render/watch-outcome-blocks.js';
import { watchSummaryMessage } from '../../src/render/watch-summary-blocks.js';
import { HOSTILE_NAMES } from '../../src/simulator/seed.js';
import type { ConditionState, EventCheck, Watch } from '../../src/watches/watch.js';
import { describeCondition, type WatchCondition } from '../../src/watches/watch-condition.js';
import { sampleReport } from '../helpers/sample-report.js';
import { shown } from '../helpers/shown.js';
import { NOT_TEXT, strayMarkup } from '../helpers/stray-markup.js';

const NOW = Date.parse('2026-12-01T09:00:00Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;

const report = sampleReport;

const state = (condition: WatchCondition, fields: Partial<ConditionState> = {}): ConditionState => ({
  condition,
  key: describeCondition(condition),
  addedBy: 'U0123456',
  armed: true,
  crossings: 0,
  ...fields,
});

const CONDITIONS: ConditionState[] = [
  state({ kind: 'sold-share', percent: 90 }, { lastValue: 52 }),
  state({ kind: 'left', code: 'EARLYBIRD', max: 15, unit: 'count' }, { armed: false, crossings: 1, lastValue: 12 }),
  state({ kind: 'left', code: 'GONE', max: 10, unit: 'percent' }, { unknown: 'the report names no promo code GONE' }),
  state({ kind: 'sold-out' }, { addedBy: 'W0ABCDEF', lastValue: 480 }),
];

const watch = (fields: Partial<Watch> = {}): Watch => ({
  channel: 'C0123456',
  personal: false,
  eventId: 'evt_1',
  eventName: 'Jazz Night',
  endsAtMs: NOW + 10 * HOUR,
  startsAtMs: NOW + 7 * HOUR,
  setBy: 'U0123456',
  createdAt: NOW - 48 * HOUR,
  conditions: CONDITIONS,
  cardTs: '1764579600.000100',
  ...fields,
});

const check = (fields: Partial<EventCheck> = {}): Shown<EventCheck> =>
  shown({
    eventId: 'evt_1',
    checkedAt: NOW - 2 * MINUTE,
    report: report(),
    previousSold: 463,
    lastSaleAt: NOW - 2 * MINUTE,
    checks: 42,
    ...fields,
  });

const card = (fields: Partial<Parameters<typeof watchCardMessage>[0]> = {}) =>
  watchCardMessage({
    watch: watch(),
    check: check(),
    nextCheckAt: NOW + 3 * MINUTE,
    now: NOW,
    intervalMs: 5 * MINUTE,
    ...fields,
  });

const all = (message: SlackMessage) => JSON.stringify(message);

/** Every shown string with an `&` that is not one of the three entities we write. */
function bareAmpersands(json: unknown, found: string[] = []): string[] {
  if (typeof json === 'string') {
    if (/&(?!amp;|lt;|gt;)/.test(json)) found.push(json);
  } else if (Array.isArray(json)) {
    for (const item of json) bareAmpersands(item, found);
  } else if (typeof json === 'object' && json !== null) {
    for (const [key, item] of Object.entries(json)) if (!NOT_TEXT.has(key)) bareAmpersands(item, found);
  }
  return found;
}

/** Where a message breaks a Block Kit limit (LIMITS in block-kit.ts). */
function overLimits(message: SlackMessage): string[] {
  const problems: string[] = [];
  if (message.text.length > LIMITS.fallbackText) problems.push(`text ${message.text.length}`);
  if (message.blocks.length > LIMITS.messageBlocks) problems.push(`${message.blocks.length} blocks`);
  message.blocks.forEach((block, index) => {
    const b = block as {
      type: string;
      text?: { text: string };
      fields?: { text: string }[];
      elements?: { text?: string }[];
    };
    if (b.type === 'header' && (b.text?.text.length ?? 0) > LIMITS.headerText) problems.push(`header ${index}`);
    if (b.type === 'section' && (b.text?.text.length ?? 0) > LIMITS.sectionText) problems.push(`section ${index}`);
    if ((b.fields?.length ?? 0) > LIMITS.fields) problems.push(`${b.fields?.length} fields in ${index}`);
    if (b.fields?.some((field) => field.text.length > LIMITS.fieldText)) problems.push(`field in ${index}`);
    if (b.type === 'context' && (b.elements?.length ?? 0) > LIMITS.contextElements) problems.push(`context ${index}`);
  });
  return problems;
}

describe('the watch card', () => {
  it('shows the figures, the sold bar, promo codes left, each condition and when it is checked', () => {
    const message = card();
    expect(message).toMatchSnapshot();
    const text = all(message);
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Watching: Jazz Night' } });
    expect(text).toContain('*Tickets sold*\\n520');
    expect(text).toContain('26,000.00 EUR');
    expect(text).toContain('█████░░░░░ 52% sold (520 of 1,000)');
    expect(text).toContain('`EARLYBIRD` 12 of 100 left');
    expect(text).toContain('`STUDENT` 47 of 50 left');
    expect(text).toContain('`sold &gt;= 90%`: watching · now 52% sold');
    expect(text).toContain('`EARLYBIRD left &lt;= 15`: :white_check_mark: crossed · now 12 left');
    expect(text).toContain('`sold out`: watching · now 480 left · added by <@W0ABCDEF>');
    expect(text).toContain(
      `as of <!date^${(NOW - 2 * MINUTE) / 1000}^{date_short_pretty} at {time}|2026-12-01 08:58 UTC>`,
    );
    expect(text).toContain(`next check about <!date^${(NOW + 3 * MINUTE) / 1000}^`);
    expect(text).toContain('checked every ~5 min');
    expect(text).toContain('Set up by <@U0123456>');
    expect(message.text).toBe('Watching Jazz Night: 52% sold (520 of 1,000)');
  });

  it('rounds the share as conditions judge it, and shows 100% and a full bar only when sold out', () => {
    const bar = (ticketsSold: number, capacity: number) =>
      all(card({ check: check({ report: report({ ticketsSold, capacity }) }) }));
    expect(bar(899, 1000)).toContain('█████████░ 89.9% sold (899 of 1,000)');
    expect(bar(9999, 10_000)).toContain('█████████░ 99.9% sold (9,999 of 10,000)');
    expect(bar(1000, 1000)).toContain('██████████ 100% sold (1,000 of 1,000)');
    expect(bar(0, 1000)).toContain('░░░░░░░░░░ 0% sold (0 of 1,000)');
  });

  it('says which condition cannot be checked, and why', () => {
    expect(all(card())).toContain(
      '`GONE left &lt;= 10%`: :warning: cannot be checked: the report names no promo code GONE',
    );
  });

  it('keeps the headline figures to six', () => {
    const fields = card().blocks.find((block) => block.type === 'section' && 'fields' in block && block.fields);
    expect((fields as { fields: unknown[] }).fields).toHaveLength(6);
  });

  it('before the first check says when it comes', () => {
    const message = card({ check: undefined });
    expect(all(message)).toContain('First check at the next spare report slot.');
    expect(all(message)).not.toContain('as of');
    expect(message.text).toBe('Watching Jazz Night: first check soon');
  });

  it('says a check is due when its time has passed', () => {
    expect(all(card({ nextCheckAt: NOW - 1 }))).toContain('next check due now');
  });

  it('paused: says why and how to set it again, with no next check', () => {
    const message = card({ watch: watch({ paused: { reason: 'not_in_channel', at: NOW } }) });
    const text = all(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Paused: Jazz Night' } });
    expect(text).toContain('the last post here was refused (not_in_channel)');
    expect(text).toContain('set it again with `/events watch evt_1`');
    expect(text).not.toContain('next check');
    expect(text).not.toContain('checked every');
    expect(text).toContain('█████░░░░░ 52% sold');
  });

  it('ended: the event is over, no next check', () => {
    const message = card({ state: 'ended' });
    const text = all(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Watch ended: Jazz Night' } });
    expect(text).toContain('The event is over');
    expect(text).not.toContain('next check');
    expect(message.text).toContain('Watch of Jazz Night ended');
  });

  it('unwatched: says by whom, leaving out an id that is not a Slack user id', () => {
    expect(all(card({ state: 'unwatched', endedBy: 'U0999999' }))).toContain('<@U0999999> stopped this watch.');
    const text = all(card({ state: 'unwatched', endedBy: 'U1<!channel>' }));
    expect(text).toContain('This watch was stopped.');
    expect(text).not.toContain('U1');
    expect(text).not.toContain('next check');
  });

  it('does not mention a setter whose id is not a Slack user id', () => {
    const text = all(card({ watch: watch({ setBy: 'someone', conditions: [] }) }));
    expect(text).not.toContain('Set up by');
    expect(text).not.toContain('someone');
    expect(text).toContain('No conditions');
  });

  it('says so when the report has no figures it can show', () => {
    expect(all(card({ check: check({ report: { status: 'pending' } }) }))).toContain('no figures to show');
  });
});

describe('watch alerts', () => {
  const alert = (condition: WatchCondition, value: number, fields: Partial<ConditionState> = {}) =>
    watchAlertMessage({ watch: watch(), condition: state(condition, fields), value, check: check() });

  it('words each kind of crossing, led by the event name, with the gist in the fallback text', () => {
    const cases: [WatchCondition, number, string][] = [
      [{ kind: 'sold-share', percent: 90 }, 92, ':rotating_light: *Jazz Night* is 92% sold (watching for 90%)'],
      [
        { kind: 'left', code: 'earlybird', max: 10, unit: 'count' },
        8,
        ':ticket: *Jazz Night*: promo `EARLYBIRD` has 8 left of 100 (watching for 10 or fewer)',
      ],
      [
        { kind: 'left', code: 'EARLYBIRD', max: 15, unit: 'percent' },
        12,
        ':ticket: *Jazz Night*: promo `EARLYBIRD` has 12% left: 12 of 100 (watching for 15% or less)',
      ],
      [
        { kind: 'sold-since', count: 50 },
        57,
        ':chart_with_upwards_trend: *Jazz Night*: 57 tickets sold since the last check (watching for 50 or more)',
      ],
      [{ kind: 'stall', hours: 6 }, 6.5, ':zzz: *Jazz Night*: no sale for 6.5 hours (watching for 6 hours)'],
      [{ kind: 'sold-out' }, 0, ':tada: *Jazz Night* is sold out'],
      [
        { kind: 'figure', field: 'ticketsSold', op: '>=', value: 400 },
        412,
        ':bar_chart: *Jazz Night*: Tickets sold reached 412 (watching for `&gt;=` 400)',
      ],
      [
        { kind: 'figure', field: 'grossRevenue', op: '<=', value: 30_000 },
        26_000,
        ':bar_chart: *Jazz Night*: Gross revenue fell to 26,000.00 EUR (watching for `&lt;=` 30,000.00 EUR)',
      ],
    ];
    for (const [condition, value, line] of cases) {
      const message = alert(condition, value);
      expect((message.blocks[0] as { text: { text: string } }).text.text).toBe(line);
      // The notification: the same sentence without emoji or bold.
      expect(message.text).toBe(line.replace(/^:[a-z_]+: /, '').replaceAll('*', ''));
    }
  });

  it('says "1 hour", and when and which condition', () => {
    const message = alert({ kind: 'stall', hours: 1 }, 1);
    expect(message.text).toBe('Jazz Night: no sale for 1 hour (watching for 1 hour)');
    expect(all(message)).toContain('condition `no sale for 1h`');
    expect(all(message)).toContain(`as of <!date^${(NOW - 2 * MINUTE) / 1000}^`);
  });

  it('renders a typical alert', () => {
    expect(alert({ kind: 'sold-share', percent: 50 }, 52)).toMatchSnapshot();
  });
});

describe('the final summary', () => {
  it('gives final figures, sold of capacity, promo codes used, alerts fired and checks', () => {
    const message = watchSummaryMessage({
      watch: watch({ conditions: [...CONDITIONS.slice(0, 2), state({ kind: 'sold-out' }, { crossings: 2 })] }),
      check: check(),
    });
    expect(message).toMatchSnapshot();
    const text = all(message);
    expect(text).toContain('*Jazz Night* is over');
    expect(text).toContain('52% sold (520 of 1,000)');
    expect(text).toContain('`EARLYBIRD` 88 of 100 used (12 left)');
    expect(text).toContain('*Alerts*: 3');
    expect(text).toContain('`sold out` ×2');
    expect(text).toContain('42 checks');
    expect(message.text).toBe('Jazz Night is over: 52% sold (520 of 1,000). 3 alerts, 42 checks.');
  });

  it('copes with an event that was never checked', () => {
    const message = watchSummaryMessage({ watch: watch({ conditions: [] }), check: undefined });
    expect(all(message)).toContain('no final figures');
    // How many alerts came is said only beside the figures it is derived from.
    expect(all(message)).not.toContain('*Alerts*');
    expect(message.text).toBe('Jazz Night is over.');
  });
});

describe('the list of watches', () => {
  const entries = [
    { watch: watch(), check: check(), nextCheckAt: NOW + 3 * MINUTE },
    {
      watch: watch({
        eventId: 'evt_2',
        eventName: 'Café Noir',
        personal: true,
        channel: 'U0123456',
        paused: { reason: 'channel_not_found', at: NOW },
      }),
      check: undefined,
      nextCheckAt: undefined,
    },
  ];

  it('says what is watched here, by whom, each condition, the last figures and when next', () => {
    const message = watchListMessage({ entries, intervalMs: 6 * MINUTE, now: NOW, where: 'channel' });
    expect(message).toMatchSnapshot();
    const text = all(message);
    expect(text).toContain('Watched here (2)');
    expect(text).toContain('*Jazz Night* · `evt_1` · set up by <@U0123456>');
    expect(text).toContain('█████░░░░░ 52% sold (520 of 1,000)');
    expect(text).toContain(':warning: cannot be checked');
    expect(text).toContain('next check about');
    expect(text).toContain('not checked yet');
    expect(text).toContain('paused (channel_not_found)');
    expect(text).toContain('checked every ~6 min');
    expect(message.text).toBe('Watched here (2): Jazz Night, Café Noir');
  });

  it('for a person says where each watch is', () => {
    const text = all(watchListMessage({ entries, intervalMs: 3 * HOUR, now: NOW, where: 'person' }));
    expect(text).toContain('Your watches (2)');
    expect(text).toContain('in <#C0123456>');
    expect(text).toContain('personal (your DMs)');
    expect(text).toContain('every ~3 h');
  });

  it('says a watch is snoozed while it is, and who snoozed it', () => {
    const snoozed = (until: number) => [
      {
        watch: watch({ quiet: { snoozedUntil: until, snoozedBy: 'U0BOB12' } }),
        check: check(),
        nextCheckAt: NOW + MINUTE,
      },
    ];
    const text = all(
      watchListMessage({ entries: snoozed(NOW + HOUR), intervalMs: MINUTE, now: NOW, where: 'channel' }),
    );
    expect(text).toMatch(/:zzz: alerts snoozed until about <!date\^\d+\^[^>]*> by <@U0BOB12>/);
    const over = all(watchListMessage({ entries: snoozed(NOW - 1), intervalMs: MINUTE, now: NOW, where: 'channel' }));
    expect(over).not.toContain('snoozed');
  });

  it('when empty, says how to start', () => {
    const message = watchListMessage({ entries: [], intervalMs: MINUTE, now: NOW, where: 'channel' });
    expect(message.text).toBe(
      'Nothing is watched here. Start with `/events watch &lt;event id or name&gt; [conditions]`',
    );
    expect(all(watchListMessage({ entries: [], intervalMs: MINUTE, now: NOW, where: 'person' }))).toContain(
      'You have set up no watches.',
    );
  });

  it('shows the three first figures of a report with no capacity', () => {
    const text = all(
      watchListMessage({
        entries: [
          {
            watch: watch(),
            check: check({ report: { checkIns: 5, grossRevenue: 10, currency: 'USD' } }),
            nextCheckAt: undefined,
          },
        ],
        intervalMs: MINUTE,
        now: NOW,
        where: 'channel',
      }),
    );
    expect(text).toContain('Check ins: 5 · Gross revenue: 10.00 USD');
  });
});

describe('the other watch messages', () => {
  it('tells the person who set it up that the channel refused posts, as the digest does', () => {
    const message = watchPausedMessage(watch(), escapeText('not_in_channel'));
    expect(message.text).toBe(
      'The watch of *Jazz Night* you set up in <#C0123456> could not be posted (not_in_channel), so it is paused. Invite me back with `/invite @eventops` and run `/events watch evt_1` there to resume.',
    );
    expect(watchPausedMessage(watch({ personal: true, channel: 'U0123456' }), escapeText('x')).text).toContain(
      'Your personal watch of *Jazz Night*',
    );
  });

  it('confirms what is watched now and what already was', () => {
    const message = watchConfirmationMessage({
      watch: watch(),
      added: ['sold >= 90%'],
      already: ['sold out'],
      intervalMs: 5 * MINUTE,
    });
    const text = all(message);
    expect(text).toContain('Watching *Jazz Night* in <#C0123456>: one card, updated every ~5 min');
    expect(text).toContain('• Added: `sold &gt;= 90%`');
    expect(text).toContain('• Already watched: `sold out`');
    expect(text).toContain(
      '• All conditions now: `sold &gt;= 90%`, `EARLYBIRD left &lt;= 15`, `GONE left &lt;= 10%`, `sold out`',
    );
    expect(message.text).toBe('Watching Jazz Night in <#C0123456>');
  });
});

/** Everything the module renders, for one watch, check and condition list. */
function everything(w: Watch, c: Shown<EventCheck> | undefined, reason: string): SlackMessage[] {
  const states = ['active', 'paused', 'ended', 'unwatched'] as const;
  const entries = [{ watch: w, check: c, nextCheckAt: NOW + MINUTE }];
  return [
    ...states.map((s) =>
      watchCardMessage({
        watch: w,
        check: c,
        nextCheckAt: NOW + MINUTE,
        now: NOW,
        state: s,
        endedBy: reason,
        intervalMs: MINUTE,
      }),
    ),
    ...(c ? w.conditions.map((condition) => watchAlertMessage({ watch: w, condition, value: 3, check: c })) : []),
    watchSummaryMessage({ watch: w, check: c }),
    watchListMessage({ entries, intervalMs: MINUTE, now: NOW, where: 'channel' }),
    watchListMessage({ entries, intervalMs: MINUTE, now: NOW, where: 'person' }),
    watchPausedMessage(w, escapeText(reason)),
    watchConfirmationMessage({ watch: w, added: [reason], already: [reason], intervalMs: MINUTE }),
  ];
}

const HOSTILE = [
  ...HOSTILE_NAMES,
  '<https://evil.example|x>',
  'a > b & c < d',
  '`EARLY`BIRD`',
  '&lt;!here&gt;',
  '<#C0123456>',
];

describe('outside text in watch messages', () => {
  it.each(HOSTILE)('never sends %s unescaped', (text) => {
    const hostileConditions: ConditionState[] = [
      state({ kind: 'figure', field: text, op: '>=', value: 1 }, { addedBy: text, lastValue: 2 }),
      state({ kind: 'left', code: text, max: 5, unit: 'count' }, { addedBy: text, armed: false, crossings: 2 }),
      state({ kind: 'left', code: text, max: 5, unit: 'percent' }, { unknown: text }),
      state({ kind: 'sold-share', percent: 90 }, { unknown: text }),
    ];
    const w = watch({
      eventName: text,
      eventId: text,
      channel: text,
      setBy: text,
      conditions: hostileConditions,
      paused: { reason: text, at: NOW },
    });
    const c = check({
      report: report({
        eventName: text,
        currency: text,
        [text]: 7,
        promos: [{ id: text, code: text, redeemed: 1, quantity: 9 }],
      }),
    });
    const messages = [...everything(w, c, text), ...everything({ ...w, personal: true }, undefined, text)];
    for (const message of messages) {
      expect(strayMarkup(message)).toEqual([]);
      expect(bareAmpersands(message)).toEqual([]);
      expect(overLimits(message)).toEqual([]);
    }
    const json = JSON.stringify(messages);
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<!here>');
    expect(json).not.toContain('<https://');
    // A backtick in a code or an id cannot end the code span it is shown in.
    if (text === '`EARLY`BIRD`') expect(json).toContain("`'EARLY'BIRD'`");
  });
});

describe('Block Kit limits', () => {
  it('hold with 50 conditions, 100 promo rows, 100 figures and 60 watches', () => {
    const conditions = Array.from({ length: 50 }, (_, i) =>
      state(
        { kind: 'left', code: `PROMO${i}${'X'.repeat(50)}`, max: 5, unit: 'count' },
        { unknown: `the report names no promo code ${'Y'.repeat(180)}`, crossings: i, addedBy: `U${i}AAAAA` },
      ),
    );
    const figures = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`figure${i}`, i * 1000.5]));
    const promos = Array.from({ length: 100 }, (_, i) => ({
      id: `p${i}`,
      code: `CODE${i}${'Z'.repeat(58)}`,
      redeemed: i,
      quantity: 100,
    }));
    const w = watch({ conditions, eventName: 'N'.repeat(500) });
    const c = check({ report: report({ ...figures, promos }) });
    const messages = [
      ...everything(w, c, 'R'.repeat(5000)),
      watchListMessage({
        entries: Array.from({ length: 60 }, () => ({ watch: w, check: c, nextCheckAt: NOW })),
        intervalMs: MINUTE,
        now: NOW,
        where: 'person',
      }),
    ];
    for (const message of messages) expect(overLimits(message)).toEqual([]);

    const cardText = all(messages[0] as SlackMessage);
    expect(cardText).toContain('...and 92 more promo codes');
    // As many condition lines as fit one section, the rest counted.
    const shown = (cardText.match(/• `PROMO\d+/g) ?? []).length;
    expect(shown).toBeGreaterThan(0);
    expect(cardText).toContain(`...and ${50 - shown} more conditions`);
    const list = messages[messages.length - 1] as SlackMessage;
    expect(list.blocks).toHaveLength(LIMITS.messageBlocks);
    expect(all(list)).toContain('...and 13 more watches');
  });
});

describe('words that read right', () => {
  it('words a sales jump for none, one and many tickets', () => {
    const jump = (value: number) =>
      watchAlertMessage({
        watch: watch(),
        condition: state({ kind: 'sold-since', count: 1 }),
        value,
        check: check(),
      }).text;
    expect(jump(1)).toBe('Jazz Night: 1 ticket sold since the last check (watching for 1 or more)');
    expect(jump(57)).toBe('Jazz Night: 57 tickets sold since the last check (watching for 1 or more)');
    const now = (value: number) =>
      all(card({ watch: watch({ conditions: [state({ kind: 'sold-since', count: 5 }, { lastValue: value })] }) }));
    expect(now(0)).toContain('now no tickets sold between the last two checks');
    expect(now(1)).toContain('now 1 ticket sold between the last two checks');
  });

  it('says a condition already crossed when the watch was set, on the card and in the confirmation', () => {
    const crossed = state({ kind: 'sold-share', percent: 50 }, { armed: false, crossings: 0, lastValue: 52 });
    expect(all(card({ watch: watch({ conditions: [crossed] }) }))).toContain(
      '`sold &gt;= 50%`: already crossed when the watch was set · now 52% sold',
    );
    const confirmation = watchConfirmationMessage({
      watch: watch({ conditions: [crossed] }),
      added: ['sold >= 50%'],
      already: [],
      alreadyCrossed: ['sold >= 50%'],
      intervalMs: 5 * MINUTE,
    });
    expect(all(confirmation)).toContain(
      '• Already crossed when the watch was set: `sold &gt;= 50%` (no alert for that; one comes if it clears and crosses again)',
    );
  });
});
