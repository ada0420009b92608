import { PaginationError } from './errors.js';

/** One page of a cursor-paginated list (spec 2.5). */
export interface Page<T> {
  items: T[];
  /** Records of the page that failed validation and were skipped. */
  skipped: number;
  nextCursor: string | undefined;
  hasMore: boolean;
}

export interface PaginateOptions {
  /** Stop with an error after this many pages, so a server that never says `hasMore: false` cannot loop forever. @default 1000 */
  maxPages?: number;
}

/**
 * Lazily walks a cursor-paginated list: each page is requested only when the loop asks for it,
 * so breaking out sends nothing more. The cursor goes back exactly as received (spec 4.1 rule 5).
 */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: PaginateOptions = {},
): AsyncGenerator<Page<T>, void, undefined> {
  const maxPages = options.maxPages ?? 1000;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pageNumber = 1; ; pageNumber += 1) {
    if (pageNumber > maxPages) {
      throw new PaginationError(`Stopped after ${maxPages} pages: the list did not end (hasMore stayed true)`);
    }
    const page = await fetchPage(cursor);
    yield page;
    if (!page.hasMore) return;
    if (page.nextCursor === undefined || page.nextCursor === '') {
      throw new PaginationError(`Page ${pageNumber} says hasMore but gives no nextCursor`);
    }
    if (seen.has(page.nextCursor)) {
      throw new PaginationError(`Page ${pageNumber} returned a cursor already followed: the list would loop`);
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

/** The items of every page, one at a time. */
export async function* items<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.items;
}
