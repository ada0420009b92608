import type { EventReport } from '../../src/ticketing/schemas.js';

/**
 * A report shaped like the simulator's (src/simulator/report.ts): 520 of 1,000 sold, two ticket
 * categories, two days of sales, two promo codes; `fields` replace any of it.
 */
export const sampleReport = (fields: Record<string, unknown> = {}): EventReport => ({
  eventId: 'evt_1',
  eventName: 'Jazz Night',
  currency: 'EUR',
  generatedAt: '2026-12-01T08:55:00.000Z',
  ticketsSold: 520,
  capacity: 1000,
  grossRevenue: 26_000,
  netRevenue: 24_440,
  checkIns: 0,
  refunds: 10,
  byCategory: [
    { id: 'tcat_1', name: 'General', price: 40, capacity: 800, sold: 450, revenue: 18_000 },
    { id: 'tcat_2', name: 'VIP', price: 114.29, capacity: 200, sold: 70, revenue: 8_000 },
  ],
  salesByDay: [
    { date: '2026-11-30', sold: 200 },
    { date: '2026-12-01', sold: 320 },
  ],
  promos: [
    { id: 'promo_1', code: 'EARLYBIRD', redeemed: 88, quantity: 100 },
    { id: 'promo_2', code: 'STUDENT', redeemed: 3, quantity: 50 },
  ],
  ...fields,
});
