import { describe, expect, it } from 'vitest';
import { zoneLabel } from '../../src/render/event-time.js';

/*
 * Zone labels are remembered (issue 44 item 9: the four-locale lookup was the slowest step of a
 * list). A zone that changed its rules names one offset two ways over the years: the label of one
 * year must not stand for another's.
 */
describe('zone labels, remembered', () => {
  it("does not lend one year's name for an offset to another year", () => {
    // America/Ciudad_Juarez at -06:00: CST in November 2022, MDT in July 2026.
    expect(zoneLabel(Date.parse('2022-11-15T12:00:00Z'), 'America/Ciudad_Juarez')).toBe('CST, UTC-06:00');
    expect(zoneLabel(Date.parse('2026-07-15T12:00:00Z'), 'America/Ciudad_Juarez')).toBe('MDT, UTC-06:00');
    // America/Whitehorse at -07:00: PDT in July 2019, no abbreviation in common use in 2027.
    expect(zoneLabel(Date.parse('2019-07-15T12:00:00Z'), 'America/Whitehorse')).toBe('PDT, UTC-07:00');
    expect(zoneLabel(Date.parse('2027-01-15T12:00:00Z'), 'America/Whitehorse')).toBe('UTC-07:00');
  });

  it('gives the same words the second time as the first', () => {
    const summer = Date.parse('2026-07-01T18:00:00Z');
    const first = zoneLabel(summer, 'Europe/London');
    expect(first).toBe('BST, UTC+01:00');
    expect(zoneLabel(summer + 3_600_000, 'Europe/London')).toBe(first);
    expect(zoneLabel(Date.parse('2026-12-01T18:00:00Z'), 'Europe/London')).toBe('GMT, UTC+00:00');
  });
});
