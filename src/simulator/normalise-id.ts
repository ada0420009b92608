/**
 * An id from a path, with or without its prefix (spec 2.1); another prefix does not match.
 * Written apart from the client's `parseId` on purpose: the stand-in must not share the client's bugs.
 */
export function normaliseId(prefix: string, raw: string): string | undefined {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const text = raw.toLowerCase();
  if (uuid.test(text)) return `${prefix}_${text}`;
  if (text.startsWith(`${prefix}_`) && uuid.test(text.slice(prefix.length + 1))) return text;
  return undefined;
}
