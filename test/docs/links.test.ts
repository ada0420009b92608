import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/*
 * The README is the front door, a page with guides behind it: short enough to read, and every
 * link in it and in the guides leads somewhere (a moved section leaves no dead link behind).
 */

const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');
const guides = readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md'));
const pages = ['README.md', ...guides.map((name) => `docs/${name}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (heading as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

describe('the README and the guides', () => {
  it('the README is at most 1,200 words', () => {
    const words = read('README.md')
      .replace(/<!--[\s\S]*?-->/g, '')
      .split(/\s+/)
      .filter((word) => /[\p{L}\p{N}]/u.test(word));
    expect(words.length).toBeLessThanOrEqual(1200);
  });

  it.each(pages)('every relative link in %s leads to a page and a heading that exist', (page) => {
    const dir = page.includes('/') ? page.slice(0, page.lastIndexOf('/') + 1) : '';
    const text = read(page).replace(/^```[\s\S]*?^```/gm, '');
    const dead: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target as string)) continue;
      const [path, anchor] = (target as string).split('#') as [string, string | undefined];
      const file = path === '' ? page : new URL(path, new URL(dir, root)).pathname.slice(new URL(root).pathname.length);
      let body: string;
      try {
        body = read(file);
      } catch {
        dead.push(`${target} (no ${file})`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchors(body).has(anchor)) dead.push(`${target} (no heading #${anchor})`);
    }
    expect(dead).toEqual([]);
  });
});
