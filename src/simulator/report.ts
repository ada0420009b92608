import { seededRandom } from './random.js';
import type { SimEvent, SimPromo } from './seed.js';

/**
 * A report body (its shape is not shown in the spec): headline figures, sales by ticket category,
 * sales by day and promo redemptions, all derived from the event so they repeat run after run.
 */
export function renderReport(event: SimEvent, promos: SimPromo[]): Record<string, unknown> {
  const random = seededRandom(Number.parseInt(event.id.slice(4, 12), 16));
  const categories = [
    { name: 'General admission', share: 0.6, price: 25 },
    { name: 'VIP', share: 0.15, price: 120 },
    { name: 'Student', share: 0.25, price: 12 },
  ].map((category, index) => {
    const capacity = Math.round(event.capacity * category.share);
    const sold = event.status === 'draft' ? 0 : Math.floor(capacity * (0.3 + random() * 0.7));
    return {
      id: `tcat_${event.id.slice(4, 12)}-0000-4000-8000-00000000000${index}`,
      name: category.name,
      price: category.price,
      capacity,
      sold,
      revenue: sold * category.price,
    };
  });
  const ticketsSold = categories.reduce((sum, c) => sum + c.sold, 0);
  const grossRevenue = categories.reduce((sum, c) => sum + c.revenue, 0);
  const salesByDay = Array.from({ length: 7 }, (_, day) => ({
    date: new Date(event.startsAtMs - (7 - day) * 86_400_000).toISOString().slice(0, 10),
    sold: Math.floor((ticketsSold / 7) * (0.5 + random())),
  }));
  return {
    eventId: event.id,
    eventName: event.name,
    currency: event.currency,
    generatedAt: new Date().toISOString(),
    ticketsSold,
    capacity: event.capacity,
    grossRevenue,
    netRevenue: Math.round(grossRevenue * 0.94 * 100) / 100,
    checkIns: event.status === 'published' ? Math.floor(ticketsSold * random() * 0.5) : 0,
    refunds: Math.floor(ticketsSold * 0.02),
    byCategory: categories,
    salesByDay,
    promos: promos.map((promo) => ({
      id: promo.id,
      code: promo.code,
      redeemed: promo.redeemed,
      quantity: promo.quantity,
    })),
  };
}
