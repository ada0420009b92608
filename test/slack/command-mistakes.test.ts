import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/render/command-syntax.js';
import { parseEventsCommand } from '../../src/slack/listeners/commands/command-parser.js';

const EVENT = 'evt_3f2c1a9e-8b7d-4c6e-9f01-23456789abcd';
const PROMO = 'promo_9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

/** The problem and usage of a command the parser refuses. */
function refusal(text: string) {
  const parsed = parseEventsCommand(text);
  if (parsed.kind !== 'invalid') throw new Error(`${text} was not refused: ${parsed.kind}`);
  return parsed;
}

describe('parseEventsCommand: a mistyped subcommand', () => {
  it('asks "did you mean" with the whole command to type, quoting the usage of the one meant', () => {
    const shwo = refusal(`shwo ${EVENT}`);
    expect(shwo.problem).toBe(`Unknown subcommand "shwo". Did you mean \`/events show ${EVENT}\`?`);
    expect(shwo.usage).toBe(USAGE.show);
    expect(refusal('REPROT jazz night').problem).toContain('Did you mean `/events report jazz night`?');
    expect(refusal('lsit today').usage).toBe(USAGE.list);
    expect(refusal('dgest on 08:00').usage).toBe(USAGE.digest);
  });

  it('names each subcommand equally close', () => {
    expect(refusal('watchs').problem).toBe(
      'Unknown subcommand "watchs". Did you mean `/events watch` or `/events watches`?',
    );
  });

  it('says nothing it cannot back: no close subcommand is no guess, and help is named', () => {
    const unknown = refusal('frobnicate now');
    expect(unknown.problem).toBe('Unknown subcommand "frobnicate".');
    expect(unknown.problem).not.toContain('Did you mean');
    expect(unknown.usage).toContain('help');
  });

  it('asks "did you mean" for a digest action too', () => {
    expect(refusal('digest stauts --me').problem).toBe(
      'Unknown digest action "stauts". Did you mean `/events digest status --me`?',
    );
    expect(refusal('digest sometimes').problem).toBe('Unknown digest action "sometimes".');
  });
});

describe('parseEventsCommand: a promo change without its quantity', () => {
  it('says the quantity is missing after a code, with the command to type', () => {
    for (const text of ['promo jazz night EARLYBIRD', `promo ${EVENT} EARLYBIRD`, 'promo jazz night earlybird']) {
      const { problem, usage } = refusal(text);
      expect(problem).toContain('The quantity is missing');
      expect(problem).not.toContain('not a number');
      expect(usage).toBe(USAGE.promo);
    }
    expect(refusal('promo jazz night EARLYBIRD').problem).toContain('`/events promo jazz night EARLYBIRD 100`');
    expect(refusal(`promo ${EVENT} EARLYBIRD`).problem).toContain(`\`/events promo ${EVENT} EARLYBIRD 100\``);
    expect(refusal(`promo jazz ${PROMO}`).problem).toContain(`\`/events promo jazz ${PROMO} 100\``);
  });

  it('still calls a word after a code or an id a quantity that is not a number, and shows where the number goes', () => {
    const lots = refusal(`promo ${EVENT} ${PROMO} lots`).problem;
    expect(lots).toContain('is not a number');
    expect(lots).toContain(`\`/events promo ${EVENT} ${PROMO} 100\``);
    expect(refusal(`promo ${EVENT} EARLYBIRD lots`).problem).toContain('is not a number');
    expect(refusal('promo jazz night EARLYBIRD lots').problem).toContain('`/events promo jazz night EARLYBIRD 100`');
  });

  it('names the code that is missing before a lone quantity', () => {
    const problem = refusal(`promo ${EVENT} 5`).problem;
    expect(problem).toContain('takes an event (its id or name), a promo code (or its id) and a quantity');
    expect(problem).toContain(`\`/events promo ${EVENT} &lt;code&gt; 5\``);
  });
});

describe('parseEventsCommand: clean words for a mistake', () => {
  it('ends a bad quantity with the value it got, not a full stop before it', () => {
    const problem = refusal(`promo ${EVENT} EARLYBIRD -5`).problem;
    expect(problem).toContain('(got "-5").');
    expect(problem).not.toMatch(/\.\s*\(got/);
  });

  it('suggests the one digest option a short word starts, "of" meaning off', () => {
    expect(refusal('digest of').problem).toBe('Unknown digest action "of". Did you mean `/events digest off`?');
    expect(refusal('digest no --me').problem).toContain('Did you mean `/events digest now --me`?');
    expect(refusal('digest o').problem).toBe('Unknown digest action "o".');
  });
});

describe('parseEventsCommand: an unknown digest option', () => {
  it('is called an option, with the one meant, not "not a timezone"', () => {
    const problem = refusal('digest on 08:00 --skipempty').problem;
    expect(problem).toBe('"--skipempty" is not an option of `digest on`. Did you mean `--skip-empty`?');
    expect(refusal('digest on --frequently').problem).toContain('is not an option of `digest on`');
    expect(refusal('digest on --frequently').problem).not.toContain('timezone');
  });
});
