import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { maybePlurals } from '../helpers/maybe-plural.js';

const SRC = new URL('../../src/', import.meta.url);

/** The code of a source file without its comments, which may say "(s)" since no person reads them in Slack. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
}

/** Each "(s)"-style plural in the code of `src/**` (`.ts` and the sandbox page's `.js`), with its file. */
function sourcePlurals(): string[] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => /\.(ts|js)$/.test(file));
  return files.flatMap((file) =>
    maybePlurals(withoutComments(readFileSync(new URL(file, SRC), 'utf8'))).map((found) => `${file}: ${found}`),
  );
}

describe('no "(s)" plural in the source', () => {
  it('has none in any string or template of src/, so a new one cannot come back', () => {
    expect(sourcePlurals()).toEqual([]);
  });

  it('finds one in code, not in a comment, and takes "http(s)" for what it is', () => {
    expect(maybePlurals(withoutComments('const a = `4 event(s)`; // 2 watch(es)'))).toEqual(['event(s)']);
    expect(maybePlurals(withoutComments('/** 1 entr(ies) */\nconst b = "1 entr(ies)";'))).toEqual(['entr(ies)']);
    expect(maybePlurals('expected an http(s) URL, not 2 watch(es)')).toEqual(['watch(es)']);
  });
});
