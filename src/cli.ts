import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { eventLinks } from './catalog/event-links.js';
import { ConfigError, loadConfig, unreadVariables, unreadVariableWords, withoutSlack } from './config.js';
import { createLogger } from './logger.js';
import { describeEventTime } from './render/event-time.js';
import { countedWords } from './render/plural.js';
import { inProcessQueue } from './reports/queue/build-report-queue.js';
import { appManifest } from './slack/app/app-manifest.js';
import type { TicketingClient } from './ticketing/client.js';
import { createTicketingClient, type TicketingLimits } from './ticketing/create-client.js';
import { isTicketingError } from './ticketing/errors.js';
import { parseId } from './ticketing/ids.js';
import { parsePromoQuantity } from './ticketing/promo-quantity.js';
import { systemClock } from './time/clock.js';

const USAGE = `Usage: eventops <command>

  check                                  verify the API key and show the request budget
  events [--all] [--json] [--limit N]    list events (first page, or every page with --all)
  report <eventId> [--json]              fetch an event's report, showing its queue position
  promo <eventId> <promoId> <quantity>   set a promo code's redemption count
  manifest [path]                        print the Slack app manifest for this configuration
                                         (manifest.yml, plus EVENT_PAGE_URL's host for unfurls)

Configuration comes from the environment: TICKETING_API_URL, TICKETING_API_KEY and the limits
described in the README.`;

class UsageError extends Error {}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

function formatWhen(ms: number | undefined): string {
  return ms === undefined ? 'unknown' : `${Math.max(0, Math.ceil((ms - systemClock.now()) / 1000))} s`;
}

async function run(client: TicketingClient, limits: TicketingLimits, argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  const expectArgs = (count: number) => {
    if (rest.length !== count)
      throw new UsageError(`${command} takes ${countedWords(count, 'argument')}, got ${rest.length}`);
  };
  switch (command) {
    case 'check': {
      expectArgs(0);
      const budget = await client.check();
      const seen = budget.lastObservation;
      io.out(
        seen
          ? `API key accepted. Budget: ${seen.remaining}/${seen.limit} requests left, window resets in ${formatWhen(seen.resetAt)}.`
          : 'API key accepted. The service sent no rate-limit headers.',
      );
      return;
    }
    case 'events': {
      expectArgs(0);
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
        throw new UsageError(`--limit takes a whole number from 1 to 100, got "${values.limit}"`);
      }
      const events = [];
      if (values.all) {
        for await (const event of client.events({ ...(limit ? { limit } : {}) })) events.push(event);
      } else {
        events.push(...(await client.listEvents({ limit: limit ?? 10 })).items);
      }
      if (values.json) {
        io.out(JSON.stringify(events, null, 2));
      } else {
        for (const event of events) {
          const status = event.status && event.status !== 'published' ? ` [${event.status}]` : '';
          io.out(`${event.id}  ${event.name ?? '(untitled)'}${status}\n    ${describeEventTime(event)}`);
        }
        io.out(countedWords(events.length, 'event'));
      }
      return;
    }
    case 'report': {
      expectArgs(1);
      let last = '';
      // The report limit is kept by a queue, as in the bot: a report 429 is waited out, not an error.
      const queue = inProcessQueue((eventId, options) => client.fetchReport(eventId, options), limits);
      const ticket = queue.request(parseId('event', rest[0] as string), {
        onProgress: (progress) => {
          const line =
            progress.state === 'queued'
              ? `Queued: position ${progress.position}, about ${Math.ceil(progress.estimatedWaitMs / 1000)} s`
              : progress.state === 'fetching'
                ? 'Fetching the report...'
                : '';
          if (line && line !== last) io.err(line);
          last = line;
        },
      });
      const first = ticket.progress();
      if (first.state === 'queued')
        io.err(`Queued: position ${first.position}, about ${Math.ceil(first.estimatedWaitMs / 1000)} s`);
      io.out(JSON.stringify(await ticket.result, null, values.json ? 0 : 2));
      return;
    }
    case 'promo': {
      expectArgs(3);
      const [eventId, promoId, quantityText] = rest as [string, string, string];
      const parsed = parsePromoQuantity(quantityText);
      if ('problem' in parsed) throw new UsageError(parsed.problem);
      const result = await client.updatePromoQuantity(eventId, promoId, parsed.quantity);
      io.out(
        `Promo ${result.promoId} on ${result.eventId} now allows ${result.quantity} ${result.quantity === 1 ? 'redemption' : 'redemptions'}.`,
      );
      return;
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}"` : 'No command given');
  }
}

/** Runs the CLI and answers its exit code: 0 success, 1 API error, 2 bad usage. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (argv[0] === 'manifest') return printManifest(argv.slice(1), env, io);
  let client: TicketingClient | undefined;
  try {
    const config = loadConfig(withoutSlack(env));
    for (const unread of unreadVariables(withoutSlack(env))) io.err(unreadVariableWords(unread));
    if (!config.ticketing.apiUrl || config.ticketing.apiUrl === 'simulator' || !config.ticketing.apiKey) {
      throw new UsageError(
        'Set TICKETING_API_URL and TICKETING_API_KEY (`npm run simulator` prints a simulator URL and key).',
      );
    }
    client = createTicketingClient({
      apiUrl: config.ticketing.apiUrl,
      apiKey: config.ticketing.apiKey,
      limits: config.ticketing,
      logger: createLogger({
        level: config.logLevel === 'info' ? 'warn' : config.logLevel,
        secrets: [config.ticketing.apiKey],
      }),
    });
    await run(client, config.ticketing, argv, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (isTicketingError(error) && error.code === 'invalid_input') {
      io.err(error.message);
      return 2;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(isTicketingError(error) ? `Error (${error.code}): ${error.message}` : `Error: ${String(error)}`);
    return 1;
  } finally {
    await client?.close();
  }
}

/** `eventops manifest [path]`: the manifest to create or update the Slack app with. */
async function printManifest(args: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  try {
    if (args.length > 1) throw new UsageError(`manifest takes at most one path, got ${args.length}`);
    const config = loadConfig(withoutSlack(env));
    for (const unread of unreadVariables(withoutSlack(env))) io.err(unreadVariableWords(unread));
    const path = args[0] ?? 'manifest.yml';
    let template: string;
    try {
      template = await readFile(path, 'utf8');
    } catch {
      throw new UsageError(`Cannot read ${path}: run this from the repository, or give the manifest's path`);
    }
    const unfurlHost = config.eventPageUrl ? eventLinks(config.eventPageUrl).host : undefined;
    io.out(appManifest(template, { unfurlHost, workObjects: config.slack.unfurlStyle === 'work-object' }).trimEnd());
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      io.err(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
