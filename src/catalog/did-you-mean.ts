/**
 * Close matches for what a person mistyped: a subcommand, a promo code, words of an event's name.
 * The distance is Damerau's (optimal string alignment), written here rather than taken from a
 * package: it is twenty lines, the event search already used it, and the small well-kept
 * packages (fastest-levenshtein, leven) count a swapped pair of letters as two typos.
 */

/** Edit distance with adjacent swaps (Damerau), stopping early past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row: number[] = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const previous = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(value);
      best = Math.min(best, value);
    }
    rows.push(row);
    if (i > 0 && best > max) return max + 1;
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * Typos forgiven in a word of this many characters: none under 3, one up to 6, two from 7. A
 * threshold relative to length, so a short word is not "close" to every other short word.
 */
function allowedTypos(length: number): number {
  if (length < 3) return 0;
  return length < 7 ? 1 : 2;
}

/**
 * How many typos (Damerau: a letter wrong, missing, extra, or two swapped) separate what was
 * typed from a candidate, case ignored; undefined past what a word of the typed length forgives.
 */
export function typoDistance(typed: string, candidate: string): number | undefined {
  const max = allowedTypos(typed.length);
  if (Math.abs(typed.length - candidate.length) > max) return undefined;
  const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase(), max);
  return distance <= max ? distance : undefined;
}

/**
 * The one candidate a short word begins ("of": off), for a few option words where a word under 3
 * letters forgives no typo; none when it begins several ("o": on and off) or is one of them.
 */
function startsOne(typed: string, candidates: readonly string[]): string[] {
  const lower = typed.toLowerCase();
  if (candidates.some((candidate) => candidate.toLowerCase() === lower)) return [];
  const begun = candidates.filter((candidate) => candidate.toLowerCase().startsWith(lower));
  return begun.length === 1 ? begun : [];
}

/**
 * The candidates a mistyped word was most likely meant to be: those nearest it within the typos
 * its length forgives (every one equally near, in the order given, at most `max`), spelled as the
 * candidates are. None when it matches one exactly (case ignored): that is no mistake.
 */
export function didYouMean(
  typed: string,
  candidates: readonly string[],
  options: { max?: number; startsOne?: boolean } = {},
): string[] {
  const wanted = typed.trim();
  if (!wanted) return [];
  if (options.startsOne && allowedTypos(wanted.length) === 0) return startsOne(wanted, candidates);
  let best = Number.POSITIVE_INFINITY;
  const nearest = new Map<string, string>();
  for (const candidate of candidates) {
    const distance = typoDistance(wanted, candidate);
    if (distance === undefined || distance > best) continue;
    if (distance === 0) return [];
    if (distance < best) {
      best = distance;
      nearest.clear();
    }
    const key = candidate.toLowerCase();
    if (!nearest.has(key)) nearest.set(key, candidate);
  }
  return [...nearest.values()].slice(0, options.max ?? 3);
}
