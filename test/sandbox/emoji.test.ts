import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { pageModule } from './page-module.js';

const { emojiFor } = await pageModule<{ emojiFor(name: string): string | undefined }>('emoji.js');

/** Every `:shortcode:` in the files that write what the bot says, with the file it is in. */
async function shortcodesInBotText(): Promise<{ code: string; file: string }[]> {
  const found: { code: string; file: string }[] = [];
  for (const folder of ['render', 'slack']) {
    const root = new URL(`../../src/${folder}/`, import.meta.url);
    for (const file of await readdir(root, { recursive: true })) {
      if (!file.endsWith('.ts')) continue;
      const text = await readFile(new URL(file, root), 'utf8');
      for (const match of text.matchAll(/:([a-z0-9_+-]+):/g)) found.push({ code: match[1] ?? '', file });
    }
  }
  return found;
}

describe('the sandbox page emoji', () => {
  it('has an emoji for every shortcode the bot writes', async () => {
    const found = await shortcodesInBotText();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter(({ code }) => emojiFor(code) === undefined)).toEqual([]);
  });
});
