import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BROWSER_TESTS, PROCESS_TESTS, SLOW_TESTS } from '../vitest.config.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const suites = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split(sep).join('/')}`);
const calls = (file: string, pattern: RegExp) => pattern.test(readFileSync(join(ROOT, file), 'utf8'));

describe('a suite’s name says what it needs', () => {
  it('names every suite that drives Chromium *.browser.test.ts, and no other', () => {
    const browser = suites.filter((file) => calls(file, /\blaunchChromium\(/));
    expect(browser.sort()).toEqual([...BROWSER_TESTS].sort());
  });

  it('names every suite that starts bot processes or benches *.processes.test.ts, and no other', () => {
    const processes = suites.filter((file) => calls(file, /\b(startReplica|useReplicas|runBench)\(/));
    expect(processes.sort()).toEqual([...PROCESS_TESTS].sort());
  });

  it('names every other suite that starts a redis-server *.redis.test.ts: all of them run in the slow project', () => {
    const redis = suites.filter((file) => calls(file, /\b(useRedis|startRedis|useReplicas)\(/));
    expect(redis.filter((file) => !SLOW_TESTS.includes(file))).toEqual([]);
    expect(SLOW_TESTS.filter((file) => file.endsWith('.redis.test.ts')).every((file) => redis.includes(file))).toBe(
      true,
    );
  });
});
