import { describe, expect, it } from 'vitest';
import { idPathSegment, normaliseApiId, parseId } from '../../src/ticketing/ids.js';

const uuid = '3f2c1a9e-8b7d-4c6e-9f01-23456789abcd';

describe('parseId', () => {
  it.each([
    ['event', `evt_${uuid}`, `evt_${uuid}`],
    ['event', uuid, `evt_${uuid}`],
    ['event', ` EVT_${uuid.toUpperCase()} `, `evt_${uuid}`],
    ['promo', uuid, `promo_${uuid}`],
    ['ticketCategory', `tcat_${uuid}`, `tcat_${uuid}`],
    ['trackingLink', uuid, `trk_${uuid}`],
    ['organization', `org_${uuid}`, `org_${uuid}`],
    ['ticket', uuid, `tkt_${uuid}`],
  ] as const)('normalises a %s id %s', (kind, input, expected) => {
    expect(parseId(kind, input)).toBe(expected);
  });

  it('names the resource a wrong prefix belongs to', () => {
    expect(() => parseId('event', `promo_${uuid}`)).toThrow(/is a promo code id, not a event id/);
  });

  it.each(['', 'evt_', 'evt_123', `${uuid}x`, `evt_${uuid}/../x`, 'x'.repeat(500)])('rejects %j', (input) => {
    expect(() => parseId('event', input)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('keeps opaque API ids as they are and prefixes bare uuids', () => {
    expect(normaliseApiId('event', 'legacy-42')).toBe('legacy-42');
    expect(normaliseApiId('event', uuid)).toBe(`evt_${uuid}`);
    expect(idPathSegment('a/b?c')).toBe('a%2Fb%3Fc');
  });
});
