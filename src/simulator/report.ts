import { CATEGORIES, type FigureSnapshot } from './moving-figures.js';
import type { SimEvent, SimPromo } from './seed.js';

/**
 * A report body (its shape is not shown in the spec): headline figures, sales by ticket category,
 * sales by day and promo redemptions, as the event's figures stand at `nowMs`.
 */
export function renderReport(
  event: SimEvent,
  figures: FigureSnapshot,
  promos: SimPromo[],
  nowMs: number,
): Record<string, unknown> {
  const categories = CATEGORIES.map((category, index) => {
    const sold = figures.sold[index] ?? 0;
    return {
      id: `tcat_${event.id.slice(4, 12)}-0000-4000-8000-00000000000${index}`,
      name: category.name,
      price: category.price,
      capacity: figures.capacities[index] ?? 0,
      sold,
      revenue: sold * category.price,
    };
  });
  const ticketsSold = categories.reduce((sum, c) => sum + c.sold, 0);
  const grossRevenue = categories.reduce((sum, c) => sum + c.revenue, 0);
  return {
    eventId: event.id,
    eventName: event.name,
    currency: event.currency,
    generatedAt: new Date(nowMs).toISOString(),
    ticketsSold,
    capacity: categories.reduce((sum, c) => sum + c.capacity, 0),
    grossRevenue,
    netRevenue: Math.round(grossRevenue * 0.94 * 100) / 100,
    checkIns: figures.checkIns,
    refunds: Math.floor(ticketsSold * 0.02),
    byCategory: categories,
    salesByDay: figures.salesByDay,
    promos: promos.map((promo) => ({
      id: promo.id,
      code: promo.code,
      redeemed: promo.redeemed,
      quantity: promo.quantity,
    })),
  };
}
