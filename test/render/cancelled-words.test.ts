import { describe, expect, it } from 'vitest';
import { cancelledEventWords } from '../../src/render/cancelled-words.js';
import { missingCodeMessage } from '../../src/render/missing-code-blocks.js';

const STYLED = '*Bold* _claims_ ~gone~ `code` <!channel>';

describe('new refusals name an event with Slack formatting characters plainly', () => {
  it('in the cancelled event’s words', () => {
    const words = cancelledEventWords(STYLED, 'watch');
    expect(words).not.toMatch(/\*Bold\*|_claims_|~gone~|`code`/);
    expect(words).not.toContain('<!channel>');
  });

  it('in the missing code’s answer', () => {
    const text = JSON.stringify(
      missingCodeMessage({ eventName: STYLED, codes: ['GALA'], command: (c) => `promo x ${c} 1` }),
    );
    expect(text).not.toMatch(/\*Bold\*|_claims_|~gone~|`code`/);
    expect(text).not.toContain('<!channel>');
  });
});
