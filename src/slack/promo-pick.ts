/** What a button of a promo command's choice of events carries: the rest of the command. */
export interface PromoPick {
  eventId: string;
  /** The promo code or its id, as typed. */
  promo: string;
  quantity: number;
}

export const encodePromoPick = (pick: PromoPick): string =>
  JSON.stringify({ e: pick.eventId, p: pick.promo, q: pick.quantity });

/** The pick a button carried back: outside input, so only its shape is read here; the rest is checked as if typed. */
export function decodePromoPick(value: string): PromoPick | undefined {
  try {
    const parsed = JSON.parse(value) as { e?: unknown; p?: unknown; q?: unknown };
    if (typeof parsed.e !== 'string' || typeof parsed.p !== 'string' || typeof parsed.q !== 'number') return undefined;
    return { eventId: parsed.e.slice(0, 100), promo: parsed.p.slice(0, 100), quantity: parsed.q };
  } catch {
    return undefined;
  }
}
