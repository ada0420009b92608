import { describe, expect, it } from 'vitest';
import { closeKnownCodes, type PromoCodeSources } from '../../src/promo/promo-codes.js';
import type { EventReport } from '../../src/ticketing/schemas.js';
import { sampleReport } from '../helpers/sample-report.js';

const EVENT = 'evt_1';

/** Sources with `remembered` codes and maybe a report at hand; nothing is ever fetched. */
function sources(
  remembered: readonly string[],
  atHand?: EventReport,
): Pick<PromoCodeSources, 'known' | 'reportAtHand'> {
  return {
    known: {
      idOf: async () => undefined,
      codeOf: async () => undefined,
      codes: async () => remembered.map((code) => ({ code })),
    },
    reportAtHand: async () => atHand,
  };
}

describe('closeKnownCodes', () => {
  it('offers the remembered code a typed one is a typo of', async () => {
    expect(await closeKnownCodes(sources(['EARLYBIRD', 'FRIENDS']), EVENT, { code: 'EARLYBRD' })).toEqual([
      'EARLYBIRD',
    ]);
    expect(await closeKnownCodes(sources(['EARLYBIRD', 'FRIENDS']), EVENT, { code: 'freinds' })).toEqual(['FRIENDS']);
  });

  it('offers the codes of the report at hand, and nothing for one it names (any case) or a row without an id', async () => {
    const report = sampleReport();
    expect(await closeKnownCodes(sources([], report), EVENT, { code: 'STUDNET' })).toEqual(['STUDENT']);
    expect(await closeKnownCodes(sources(['STUDNET'], report), EVENT, { code: 'student' })).toEqual([]);
    const noIds = sampleReport({ promos: [{ code: 'EARLYBIRD', redeemed: 1, quantity: 10 }] });
    expect(await closeKnownCodes(sources([], noIds), EVENT, { code: 'EARLYBRD' })).toEqual([]);
  });

  it('offers nothing for a code that is known, far from every known code, or differs in its digits', async () => {
    expect(await closeKnownCodes(sources(['EARLYBIRD']), EVENT, { code: 'earlybird' })).toEqual([]);
    expect(await closeKnownCodes(sources(['EARLYBIRD', 'FRIENDS']), EVENT, { code: 'NOSUCHCODE' })).toEqual([]);
    // A new season's code, not a typo of last season's.
    expect(await closeKnownCodes(sources(['SUMMER25']), EVENT, { code: 'SUMMER26' })).toEqual([]);
    expect(await closeKnownCodes(sources(['SUMMER25']), EVENT, { code: 'SUMER25' })).toEqual(['SUMMER25']);
    expect(await closeKnownCodes(sources(['EARLYBIRD']), EVENT, { id: 'promo_1' })).toEqual([]);
  });

  it('offers nothing, and does not throw, when neither source can be read', async () => {
    const broken: Pick<PromoCodeSources, 'known' | 'reportAtHand'> = {
      known: {
        idOf: async () => undefined,
        codeOf: async () => undefined,
        codes: () => Promise.reject(new Error('store down')),
      },
      reportAtHand: () => Promise.reject(new Error('cache down')),
    };
    expect(await closeKnownCodes(broken, EVENT, { code: 'EARLYBRD' })).toEqual([]);
    expect(
      await closeKnownCodes({ known: undefined, reportAtHand: async () => undefined }, EVENT, { code: 'X' }),
    ).toEqual([]);
  });
});
