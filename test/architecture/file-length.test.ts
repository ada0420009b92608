import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Issue 34: no source file over 500 lines. A file that grows past it is split by what its parts
 * are about, not cut in halves; this names the files that need it.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_LINES = 500;
/** The code the bot, the sandbox page and the benches run (tests are not held to it). */
const FOLDERS = ['src', 'bench'];
const CODE = /\.(ts|js|css|html)$/;

function codeFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return codeFiles(path);
    return CODE.test(entry.name) ? [path] : [];
  });
}

const lineCount = (path: string) => readFileSync(path, 'utf8').replace(/\n$/, '').split('\n').length;

describe('source file length', () => {
  it(`holds every source file of ${FOLDERS.join(' and ')} to ${MAX_LINES} lines`, () => {
    const files = FOLDERS.flatMap((folder) => codeFiles(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((path) => ({ file: relative(ROOT, path), lines: lineCount(path) }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(over).toEqual([]);
  });
});
