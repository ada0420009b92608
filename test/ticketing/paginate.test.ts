import { describe, expect, it } from 'vitest';
import { type Page, paginate } from '../../src/ticketing/paginate.js';

const page = (items: number[], nextCursor: string | undefined, hasMore: boolean): Page<number> => ({
  items,
  skipped: 0,
  nextCursor,
  hasMore,
});

describe('paginate', () => {
  it('stops with an error on a repeated cursor', async () => {
    const pages = paginate(async () => page([1], 'same', true));
    await expect(async () => {
      for await (const _ of pages);
    }).rejects.toThrow(/already followed/);
  });

  it('stops with an error when hasMore comes without a cursor', async () => {
    const pages = paginate(async () => page([1], undefined, true));
    await expect(async () => {
      for await (const _ of pages);
    }).rejects.toMatchObject({ code: 'pagination' });
  });

  it('stops a runaway crawl at maxPages', async () => {
    let n = 0;
    const pages = paginate(async () => page([n], `c${n++}`, true), { maxPages: 5 });
    await expect(async () => {
      for await (const _ of pages);
    }).rejects.toThrow(/after 5 pages/);
    expect(n).toBe(5);
  });

  it('asks for nothing more once the loop breaks', async () => {
    const cursors: (string | undefined)[] = [];
    for await (const p of paginate(async (cursor) => {
      cursors.push(cursor);
      return page([1], `c${cursors.length}`, true);
    })) {
      if (p.items.length > 0 && cursors.length === 2) break;
    }
    expect(cursors).toEqual([undefined, 'c1']);
  });
});
