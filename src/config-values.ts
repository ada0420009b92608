import { z } from 'zod';
import { parseRateLimit } from './ticketing/rate-limit.js';

/*
 * The shapes the configuration's variables take (durations, rate limits, ports, secrets, one of a
 * few words), each with a message that says what was expected; config.ts puts them to its names.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `90s`, `2h`, `500ms`, `5m`, `30d` into whole ms; a bare `0` (no unit) is zero too. */
export function parseDuration(text: string): number | undefined {
  if (/^\s*0\s*$/.test(text)) return 0;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] as string] ?? 0));
}

export const rateLimit = (example: string) =>
  z.string().transform((text, ctx) => {
    const parsed = parseRateLimit(text);
    if (!parsed) {
      ctx.addIssue({ code: 'custom', message: `expected <requests>/<window> such as "${example}", got "${text}"` });
      return z.NEVER;
    }
    return parsed;
  });

export const duration = (example: string) =>
  z.string().transform((text, ctx) => {
    const parsed = parseDuration(text);
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: `expected a duration such as "${example}", got "${text}"` });
      return z.NEVER;
    }
    return parsed;
  });

/** A duration with a floor: anything shorter is refused, naming the floor. */
export const durationAtLeast = (minMs: number, minText: string, example: string) =>
  duration(example).refine((ms) => ms >= minMs, {
    message: `expected at least ${minText}, such as "${example}"`,
  });

/** A count of at least 1 (whole), its default when unset. */
export const countAtLeastOne = (fallback: number) => {
  const expected = { message: `expected a whole number of at least 1, such as ${fallback}` };
  return z.preprocess(empty, z.coerce.number(expected).int(expected).min(1, expected).default(fallback));
};

export const httpUrl = z
  .string()
  .trim()
  .refine((text) => /^https?:\/\//.test(text) && URL.canParse(text), { message: 'expected an http(s) URL' });

/** A secret is checked for shape only; its value never appears in a message. */
export const secret = (prefix: string | undefined, what: string) =>
  z
    .string()
    .trim()
    .min(1, { message: `expected ${what}` })
    .refine((text) => prefix === undefined || text.startsWith(prefix), {
      message: `expected ${what} starting with "${prefix}" (value not shown)`,
    });

const PORT_RANGE = { message: 'expected a port number from 0 to 65535' };
export const port = (fallback: number) =>
  z.preprocess(
    empty,
    z.coerce.number(PORT_RANGE).int(PORT_RANGE).min(0, PORT_RANGE).max(65_535, PORT_RANGE).default(fallback),
  );

export const empty = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** One of a few words, any case, or the default when unset or empty; anything else names the choices. */
export function oneOf<const T extends string>(choices: readonly [T, ...T[]], fallback: NoInfer<T>) {
  return z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : value),
    z
      .enum(choices, {
        error: (issue) => `expected one of ${choices.join(', ')}, got "${String(issue.input)}"`,
      })
      .default(fallback as never),
  );
}
