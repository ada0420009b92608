import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtScript } from '../helpers/built-sources.js';
import { startFakeSlack } from '../helpers/fake-slack.js';
import { fakeSlackToken } from '../helpers/fake-tokens.js';
import { useRedis } from '../helpers/redis-server.js';
import { startScript } from '../helpers/script-process.js';

/*
 * Issue 16 item 13: one process on SQLite loads no Redis, BullMQ or ioredis code. The bot runs as
 * `npm start` runs it, with a module.register() resolve hook that writes down every module URL it
 * resolves (ES modules, and the CommonJS ones imported from them); at exit the process adds what
 * require() loaded. The same bot on a redis:// store must load them all, or the check could never fail.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDIS_PACKAGES = ['bullmq', 'ioredis', '@keyv/redis', '@redis/client'];
const redis = useRedis();
const folder = mkdtempSync(join(tmpdir(), 'eventops-loaded-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const dataUrl = (code: string) => `data:text/javascript,${encodeURIComponent(code)}`;

/** `--import` module: registers the recording hook, and adds require()'s cache at exit. */
function recorder(file: string): string {
  const hooks = `
    import { appendFileSync } from 'node:fs';
    export async function resolve(specifier, context, nextResolve) {
      const resolved = await nextResolve(specifier, context);
      appendFileSync(${JSON.stringify(file)}, resolved.url + '\\n');
      return resolved;
    }`;
  return dataUrl(`
    import { appendFileSync } from 'node:fs';
    import { createRequire, register } from 'node:module';
    register(${JSON.stringify(dataUrl(hooks))});
    const cache = createRequire(${JSON.stringify(join(ROOT, 'package.json'))}).cache;
    process.on('exit', () => appendFileSync(${JSON.stringify(file)}, Object.keys(cache).join('\\n') + '\\n'));`);
}

/** Starts the bot with `storeUrl`, waits until it listens and its catalog is crawled, stops it; what it loaded. */
async function modulesLoadedBy(storeUrl: string, name: string): Promise<string[]> {
  const slack = await startFakeSlack();
  const file = join(folder, `${name}.txt`);
  const bot = await startScript(
    'src/main.ts',
    {
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      SLACK_BOT_TOKEN: fakeSlackToken('b', name),
      SLACK_SIGNING_SECRET: 'loaded-modules-signing-secret',
      SLACK_API_URL: slack.apiUrl,
      TICKETING_API_URL: 'simulator',
      STORE_URL: storeUrl,
    },
    { nodeArgs: ['--import', recorder(file)] },
  );
  try {
    // Listening, then the first crawl done: what loads lazily after start-up has loaded by then.
    await bot.waitFor(/is listening for Slack/, 30_000);
    await bot.waitFor(/Event catalog refreshed/, 30_000);
  } finally {
    bot.child.kill('SIGTERM');
    await bot.exited;
    await slack.close();
  }
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

const loadedPackages = (urls: string[]) =>
  REDIS_PACKAGES.filter((name) => urls.some((url) => url.includes(`/node_modules/${name}/`)));

describe('which store code a bot process loads', () => {
  it('one process on SQLite loads no Redis, BullMQ or ioredis code', async () => {
    const urls = await modulesLoadedBy('sqlite://:memory:', 'sqlite');
    // The recorder saw the bot's own modules and its libraries, so an empty answer means something.
    expect(urls).toContain(pathToFileURL(await builtScript('src/store/open-store.ts')).href);
    expect(urls.some((url) => url.includes('/node_modules/@keyv/sqlite/'))).toBe(true);
    expect(loadedPackages(urls)).toEqual([]);
  });

  it('a replica on redis:// loads all of them (the check above can fail)', async () => {
    const urls = await modulesLoadedBy(redis.url, 'redis');
    expect(loadedPackages(urls)).toEqual(REDIS_PACKAGES);
  });
});
