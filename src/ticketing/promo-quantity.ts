/**
 * The one rule for a promo code's quantity, used by the command parser, the confirmation, the
 * client and the CLI: a whole number from 0 to 1,000,000. Above that a quantity is taken for a
 * typo rather than a plan.
 */
export const MAX_PROMO_QUANTITY = 1_000_000;

export function isPromoQuantity(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_PROMO_QUANTITY;
}

const LIMIT_WORDS = `a whole number from 0 to ${MAX_PROMO_QUANTITY.toLocaleString('en-US')}`;

/** What is wrong with a quantity that is not valid, in words (the value itself is not repeated). */
export function promoQuantityProblem(value: number): string | undefined {
  if (isPromoQuantity(value)) return undefined;
  if (!Number.isFinite(value)) return `The quantity must be ${LIMIT_WORDS}.`;
  if (value < 0) return `The quantity cannot be negative: it must be ${LIMIT_WORDS}.`;
  if (!Number.isInteger(value)) return `The quantity must be ${LIMIT_WORDS}, not a fraction.`;
  return `The quantity is too large: it must be ${LIMIT_WORDS}.`;
}

/**
 * Reads a quantity typed by a person: digits only. Separators are refused rather than guessed
 * (`1,000` could be one thousand or one point zero), and so are signs, spaces and decimals.
 */
export function parsePromoQuantity(text: string): { quantity: number } | { problem: string } {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const quantity = Number(trimmed);
    const problem = promoQuantityProblem(quantity);
    return problem ? { problem } : { quantity };
  }
  if (/^\d{1,3}([,_. ']\d{3})+$/.test(trimmed)) {
    return { problem: `Write the quantity without separators (${LIMIT_WORDS}, e.g. 1000 rather than 1,000).` };
  }
  if (/^-\d+$/.test(trimmed)) return { problem: `The quantity cannot be negative: it must be ${LIMIT_WORDS}.` };
  if (/^[+-]?\d*[.,]\d+$/.test(trimmed)) return { problem: `The quantity must be ${LIMIT_WORDS}, not a fraction.` };
  return { problem: `The quantity is not a number: it must be ${LIMIT_WORDS}.` };
}
