import { readFileSync } from 'node:fs';
import { parseArgs, parseEnv } from 'node:util';
import type { Bot } from './compose.js';
import { type Config, ConfigError, loadConfig, unreadVariables, unreadVariableWords } from './config.js';
import { exitWithParent } from './lifecycle/exit-with-parent.js';
import { listenCheck } from './lifecycle/listen-check.js';
import { isStartRefusal, listenRefusal, type StartRefusal } from './lifecycle/start-refusal.js';
import { createLogger, type Logger } from './logger.js';
import { countedWords } from './render/plural.js';
import type { SandboxStack } from './sandbox/sandbox-stack.js';
import { describeRedis, parseRedisUrl, redisSecrets } from './store/redis-url.js';

/**
 * Without Slack credentials: the whole bot in a local Slack sandbox in the browser, against the
 * built-in simulator unless TICKETING_API_URL names a real service.
 */
async function startLocalSandbox(
  config: Config,
  logger: Logger,
  env: Record<string, string | undefined>,
): Promise<SandboxStack> {
  const store = config.sandboxStoreUrl;
  const inMemory = store === 'sqlite://:memory:';
  // The first line says what runs and on what, before anything opens.
  logger.info(
    `Starting the local Slack sandbox (no SLACK_ variable is set) on http://127.0.0.1:${config.port}/, one process, its store ${inMemory ? 'in memory (nothing kept after exit)' : `in ${store} (kept across restarts)`}`,
    env.STORE_URL?.trim() ? { storeUrl: 'set but not used by the sandbox (SANDBOX_STORE names its store)' } : {},
  );
  // A copied .env.example sets STORE_URL: said plainly, not only in a JSON field.
  if (env.STORE_URL?.trim())
    process.stdout.write(
      `STORE_URL is not used by the sandbox; its store is ${inMemory ? 'in memory' : store} (SANDBOX_STORE)\n`,
    );
  // The sandbox and its page load only in the sandbox: a workspace deployment never holds them.
  const { startSandboxStack } = await import('./sandbox/sandbox-stack.js');
  const stack = await startSandboxStack({ env, logger, port: config.port, store });
  const service =
    config.ticketing.apiUrl && config.ticketing.apiUrl !== 'simulator'
      ? config.ticketing.apiUrl
      : 'the built-in simulator (demo data)';
  process.stdout.write(
    [
      `eventops is running in a local Slack sandbox: open ${stack.url}`,
      `Events come from ${service}. Set SLACK_BOT_TOKEN (see the README) to run it in a real workspace.`,
      inMemory
        ? 'Its store: in memory, nothing kept after exit (SANDBOX_STORE=memory).'
        : `Its store: ${store}, kept across restarts (SANDBOX_STORE=memory keeps nothing).`,
      ...(stack.eventLinkPattern
        ? [`Event links it unfolds into cards: ${stack.eventLinkPattern} (EVENT_PAGE_URL to change).`]
        : []),
      '',
    ].join('\n'),
  );
  return stack;
}

/**
 * The first line of a workspace start, before anything opens: the receiver and where it listens,
 * and the store (one process on SQLite, or replicas on Redis; a Redis URL without its credentials).
 */
function workspaceStartLine(config: Config): string {
  const receiver = config.slack.appToken
    ? `Socket Mode (health and metrics on port ${config.healthPort})`
    : `the HTTP receiver on ${config.host ? `${config.host}:` : 'port '}${config.port} (POST /slack/events)`;
  const store = /^rediss?:/i.test(config.storeUrl)
    ? `replicas on Redis (${describeRedis(parseRedisUrl(config.storeUrl))})`
    : `one process on SQLite (${config.storeUrl})`;
  return `Starting eventops for a Slack workspace: ${receiver}, ${store}`;
}

/** What runs in the background once the bot listens: the catalog refresh, the watches' checks and the digests' catch-up. */
async function startBackgroundWork(bot: Bot): Promise<void> {
  bot.catalog.start();
  bot.watchScheduler.start();
  await bot.work.track(bot.digests.start());
}

/** What `npm start` asks of the process besides its environment (package.json's start script passes them). */
interface StartOptions {
  /** Read this file's variables under the environment's, when it exists (`.env`). */
  envFile: string | undefined;
  /** Stop when the parent (npm) goes, even killed without a chance to pass a signal on. */
  exitWithParent: boolean;
}

/** A configuration or environment mistake before the logger exists: the operator's lines alone, exit 2. */
function refuseEarly(lines: string): never {
  process.stderr.write(`${lines}\n`);
  process.exit(2);
}

function startOptions(argv: string[]): StartOptions {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { 'read-env-file': { type: 'string' }, 'exit-with-parent': { type: 'boolean' } },
      strict: true,
    });
    return { envFile: values['read-env-file'], exitWithParent: values['exit-with-parent'] === true };
  } catch (error) {
    return refuseEarly(`${(error as Error).message}; dist/main.js takes --read-env-file=<file> and --exit-with-parent`);
  }
}

/** What was read from the env file, for the first log line (names only: values may be secrets). */
interface EnvFileRead {
  file: string;
  variables: number;
  /** Set in the environment too: the environment's value is used. */
  keptFromEnvironment: string[];
  /** Left empty in the file (`NAME=`): unset, as in `.env.example` copied as it is. */
  leftEmpty: string[];
}

/**
 * The environment with `file`'s variables under it, if the file exists: a variable the environment
 * sets (even empty) keeps its value. A variable the file leaves empty is unset: `.env.example`
 * lists every variable with blanks to fill, and copied as it is it must start the sandbox, not
 * count its blank SLACK_ lines as a half-configured workspace (an empty value in the environment
 * still counts: there it is a deploy whose secret came through blank). Only for the configuration: Node reads some variables
 * (NODE_EXTRA_CA_CERTS, NODE_OPTIONS) before any code runs, so those belong in the environment.
 */
function withEnvFile(
  env: Record<string, string | undefined>,
  file: string,
): { env: Record<string, string | undefined>; read?: EnvFileRead } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return { env };
    return refuseEarly(
      `${file}: could not be read (${(error as { code?: string }).code ?? 'error'}); fix or remove it`,
    );
  }
  const parsed = Object.entries(parseEnv(text) as Record<string, string>);
  const fromFile = Object.fromEntries(parsed.filter(([, value]) => value.trim() !== ''));
  const names = Object.keys(fromFile);
  return {
    env: { ...fromFile, ...env },
    read: {
      file,
      variables: names.length,
      keptFromEnvironment: names.filter((name) => env[name] !== undefined),
      leftEmpty: parsed.filter(([, value]) => value.trim() === '').map(([name]) => name),
    },
  };
}

/**
 * A start refused for what the operator mends (a port in use, Slack or the store refusing): logged,
 * then the sentence on a line of its own and exit 2, like an invalid configuration. Written at exit,
 * after the log's exit listener (added with the logger) has flushed the lines it still held.
 */
function refuseStart(logger: Logger, refusal: { message: string }, cause: unknown): never {
  logger.error('Start refused', { error: cause });
  process.once('exit', () => process.stderr.write(`${refusal.message}\n`));
  process.exit(2);
}

/** The operator's sentence for a failed start, if it is the operator's to mend; undefined for a bug. */
async function startRefusal(
  error: unknown,
  listen: () => StartRefusal | undefined,
): Promise<{ message: string } | undefined> {
  if (isStartRefusal(error)) return error;
  // The store it names cannot be used (Redis refused or is not there, a SQLite path it cannot open).
  const { isStoreError } = await import('./store/key-value-store.js');
  if (isStoreError(error)) return error;
  return listen();
}

/** Composition root: reads the bot's configuration from `process.env` and wires process-wide things (the CLIs read their own). */
async function main(): Promise<void> {
  const options = startOptions(process.argv.slice(2));
  const { env, read } = options.envFile ? withEnvFile(process.env, options.envFile) : { env: process.env };
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      const source = read ? `; ${read.file} was read, and the environment's values win over it` : '';
      refuseEarly(`${error.message}\nSee .env.example and docs/configuration.md${source}.`);
    }
    throw error;
  }
  const logger = createLogger({
    level: config.logLevel,
    secrets: [
      config.ticketing.apiKey,
      config.slack.botToken,
      config.slack.appToken,
      config.slack.signingSecret,
      ...redisSecrets(config.storeUrl),
    ],
  });
  process.on('unhandledRejection', (reason) => logger.error('Unhandled rejection', { error: reason }));
  if (read)
    logger.info(`Read ${read.file}: ${countedWords(read.variables, 'variable')}, under the environment's`, {
      keptFromEnvironment: read.keptFromEnvironment,
      leftEmptySoUnset: read.leftEmpty,
    });
  for (const unread of unreadVariables(env)) logger.warn(unreadVariableWords(unread), { variable: unread.variable });

  // Handlers first: a signal during startup (or the digest catch-up) still shuts down cleanly.
  let stop: () => Promise<void> = async () => {};
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('Shutting down', { signal });
    // Work gets 30 s to drain and each connection 5 s to close; past a minute the process goes anyway.
    setTimeout(() => {
      logger.error('Shutdown took over a minute; exiting without it');
      process.exit(1);
    }, 60_000).unref();
    await stop().catch((error: unknown) => logger.error('Shutdown failed', { error }));
    logger.info('Stopped');
    process.exit(0);
  };
  // Under `npm start` a Ctrl-C arrives twice, from the terminal and passed on by npm: a second
  // signal within a second is that same one; a later one ends the process without waiting.
  let firstSignalAt = 0;
  const onSignal = (signal: string) => {
    if (!stopping) {
      firstSignalAt = Date.now();
      void shutdown(signal);
    } else if (Date.now() - firstSignalAt > 1_000) {
      logger.warn('Signalled again while shutting down; exiting without waiting', { signal });
      process.exit(1);
    }
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  if (options.exitWithParent) exitWithParent(() => void shutdown('parent exited'));

  if (config.mode === 'sandbox') {
    let stack: SandboxStack;
    try {
      // The sandbox's page does not report a listen error: a port in use is found out first.
      await listenCheck(config.port, '127.0.0.1');
      stack = await startLocalSandbox(config, logger, env);
    } catch (error) {
      const refusal = await startRefusal(error, () => listenRefusal(error, 'PORT', config.port, '127.0.0.1'));
      if (!refusal) throw error;
      refuseStart(logger, refusal, error);
    }
    stop = () => stack.close();
    if (!stopping) await startBackgroundWork(stack.bot);
    return;
  }
  logger.info(workspaceStartLine(config));
  // Loaded once the configuration holds: a start it refuses says why without loading the bot first.
  const { composeBot } = await import('./compose.js');
  let bot: Bot;
  try {
    bot = await composeBot(config, { logger, healthPort: config.healthPort });
  } catch (error) {
    // Socket Mode's health server is the one port composing the bot listens on.
    const refusal = await startRefusal(error, () =>
      listenRefusal(error, 'HEALTH_PORT', config.healthPort, config.host),
    );
    if (!refusal) throw error;
    refuseStart(logger, refusal, error);
  }
  stop = () => bot.close();
  try {
    if (config.slack.appToken) {
      await bot.app.start();
      logger.info('eventops is running in Socket Mode');
    } else {
      const server = await bot.listenForSlack(
        config.host ? { port: config.port, host: config.host } : { port: config.port },
      );
      const bound = server.address() as { port?: number } | null;
      logger.info('eventops is listening for Slack on POST /slack/events', { port: bound?.port ?? config.port });
    }
  } catch (error) {
    const refusal = config.slack.appToken
      ? appTokenRefusal(error)
      : listenRefusal(error, 'PORT', config.port, config.host);
    if (!refusal) throw error;
    // Nothing has run yet: the store and the simulator close without waiting for work.
    await Promise.race([bot.close({ drainMs: 0 }), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    refuseStart(logger, refusal, error);
  }
  if (!stopping) await startBackgroundWork(bot);
}

/** Socket Mode's connection refused at start: Slack's word for the app-level token. */
function appTokenRefusal(error: unknown): { message: string } | undefined {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  if (typeof code !== 'string') return undefined;
  return {
    message: `SLACK_APP_TOKEN: Slack refused the app-level token (${code}); create one with the connections:write scope under the app's Basic Information, and turn on Socket Mode`,
  };
}

await main();
