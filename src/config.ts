import { z } from 'zod';
import { didYouMean } from './catalog/did-you-mean.js';
import { eventLinks } from './catalog/event-links.js';
import {
  countAtLeastOne,
  duration,
  durationAtLeast,
  empty,
  httpUrl,
  oneOf,
  parseDuration,
  port,
  rateLimit,
  secret,
} from './config-values.js';
import type { FiguresPolicy } from './figures/may-show-figures.js';
import { LOG_LEVELS } from './logger.js';
import { DEFAULT_WAITING_LIMITS } from './reports/queue/report-waiting.js';
import { DEFAULT_WATCH_SLOT_EVERY_WINDOWS } from './reports/queue/watch-share.js';
import { type AuditKeep, DEFAULT_AUDIT_KEEP } from './store/activity-store.js';
import { parseRedisUrl, RedisUrlError } from './store/redis-url.js';
import { parseRateLimit, type RateLimitSpec } from './ticketing/rate-limit.js';
import { MAX_WATCHES_PER_PERSON } from './watches/watch-limits.js';

export { parseDuration, parseRateLimit, type RateLimitSpec };

/**
 * Where link unfurls show report figures: `internal`, only in conversations of the organization
 * alone that the bot is in; `off`, nowhere; `everywhere`, in any conversation (also Slack Connect).
 */
export const UNFURL_FIGURES_MODES = ['internal', 'off', 'everywhere'] as const;
export type UnfurlFigures = (typeof UNFURL_FIGURES_MODES)[number];

/**
 * How an event link unfolds: `work-object`, a Work Object card with no figures (each person opens
 * the figures the rule allows them in its flexpane), falling back to `classic` where Slack refuses
 * it; `classic`, the Block Kit card (figures as UNFURL_FIGURES allows).
 */
export const UNFURL_STYLES = ['work-object', 'classic'] as const;
export type UnfurlStyle = (typeof UNFURL_STYLES)[number];
/** A report's wait in a channel: streamed where Slack lets it (`on`), or a notice edited in place (`off`). */
export const REPORT_STREAMING_MODES = ['on', 'off'] as const;
/** Whether the MCP server answers at /mcp (`MCP_SERVER`). */
export const MCP_SERVER_MODES = ['on', 'off'] as const;
export type ReportStreaming = (typeof REPORT_STREAMING_MODES)[number];

/** Where the local sandbox keeps its state across restarts, unless SANDBOX_STORE says otherwise. */
export const DEFAULT_SANDBOX_STORE = 'sqlite://./data/sandbox.sqlite';

/** The variables that mean "a real Slack workspace" when any one of them is set. */
const SLACK_VARIABLES = ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL'] as const;

const schema = z.object({
  TICKETING_API_URL: z.preprocess(
    empty,
    z
      .string()
      .trim()
      .refine((text) => text === 'simulator' || (/^https?:\/\//.test(text) && URL.canParse(text)), {
        message: 'expected an http(s) URL, or "simulator" for the built-in demo service',
      })
      .optional(),
  ),
  TICKETING_API_KEY: z.preprocess(empty, secret(undefined, 'an API key').optional()),
  TICKETING_ORG_LIMIT: z.preprocess(empty, rateLimit('180/60s').default({ limit: 180, windowMs: 60_000 })),
  TICKETING_REPORT_LIMIT: z.preprocess(empty, rateLimit('3/60s').default({ limit: 3, windowMs: 60_000 })),
  TICKETING_REPORT_CACHE_TTL: z.preprocess(empty, duration('60s').default(60_000)),
  TICKETING_BACKGROUND_RESERVE: z.preprocess(
    empty,
    z.coerce
      .number({ message: 'expected a share from 0 to 0.9, such as 0.15' })
      .min(0, { message: 'expected a share from 0 to 0.9, such as 0.15' })
      .max(0.9, { message: 'expected a share from 0 to 0.9, such as 0.15' })
      .default(0.15),
  ),
  // No one person, or workflow, can starve everyone: a report over these waits is refused at once.
  REPORTS_WAITING_PER_PERSON: countAtLeastOne(DEFAULT_WAITING_LIMITS.perPerson),
  REPORT_STEPS_WAITING: countAtLeastOne(DEFAULT_WAITING_LIMITS.steps),
  WATCH_SLOT_EVERY_WINDOWS: countAtLeastOne(DEFAULT_WATCH_SLOT_EVERY_WINDOWS),
  WATCHES_PER_PERSON: countAtLeastOne(MAX_WATCHES_PER_PERSON),
  // How long promo changes stay in the audit: at least this many days (90d), or the newest N.
  PROMO_AUDIT_KEEP: z.preprocess(
    empty,
    z
      .string()
      .trim()
      .transform((text, ctx): AuditKeep => {
        const days = /^(\d+)d$/.exec(text);
        if (days && Number(days[1]) >= 1) return { days: Number(days[1]) };
        if (/^\d+$/.test(text) && Number(text) >= 1) return { count: Number(text) };
        ctx.addIssue({ code: 'custom', message: `expected days such as "90d" or a count such as 5000, got "${text}"` });
        return z.NEVER;
      })
      .default(DEFAULT_AUDIT_KEEP),
  ),
  DIGEST_GRACE: z.preprocess(empty, duration('2h').default(2 * 3_600_000)),
  // At least a second: a job lock shorter than that expires before BullMQ renews it (a report
  // fetched several times) or is refused by its scripts.
  REPORT_JOB_LOCK: z.preprocess(empty, durationAtLeast(1_000, '1s', '30s').default(30_000)),
  // At least a second: the watches never check one event again sooner than this (a report a
  // person fetches still counts as a check whenever it comes).
  WATCH_MIN_INTERVAL: z.preprocess(empty, durationAtLeast(1_000, '1s', '10m').default(600_000)),
  // The organization's public event page: links to it unfold into event cards in Slack.
  EVENT_PAGE_URL: z.preprocess(
    empty,
    z
      .string()
      .refine(
        (text) => {
          try {
            eventLinks(text);
            return true;
          } catch {
            return false;
          }
        },
        { message: 'expected an http(s) URL with one {id} or {bareId}, such as https://tickets.example.com/e/{id}' },
      )
      .optional(),
  ),
  // Which conversations an event card unfolded from a link shows report figures in.
  UNFURL_FIGURES: oneOf(UNFURL_FIGURES_MODES, 'internal'),
  // Whether event links unfold as Work Objects (figures in each person's flexpane) or classic cards.
  UNFURL_STYLE: oneOf(UNFURL_STYLES, 'work-object'),
  // Whether a report's wait in a channel streams (chat.startStream) where Slack lets it.
  REPORT_STREAMING: oneOf(REPORT_STREAMING_MODES, 'on'),
  // Whether agents (Slackbot's MCP client, Claude, ...) reach the bot's tools at /mcp.
  MCP_SERVER: oneOf(MCP_SERVER_MODES, 'off'),
  // Socket Mode has no HTTP receiver: the MCP server gets a port of its own.
  MCP_PORT: port(3002),
  // How long a person's MCP token lasts, and how many tool calls one person makes in a window.
  MCP_TOKEN_TTL: z.preprocess(empty, durationAtLeast(60_000, '1m', '30d').default(30 * 86_400_000)),
  MCP_CALLS_PER_PERSON: z.preprocess(empty, rateLimit('30/60s').default({ limit: 30, windowMs: 60_000 })),
  // Whether guests of the workspace (multi- and single-channel) may read sales and revenue.
  FIGURES_FOR_GUESTS: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : value),
    z
      .string()
      .refine((text) => text === 'hidden' || text === 'shown', {
        error: (issue) => `expected hidden or shown, got "${String(issue.input)}"`,
      })
      .transform((text) => text === 'shown')
      .default(false),
  ),
  SLACK_BOT_TOKEN: z.preprocess(empty, secret('xoxb-', 'a bot token').optional()),
  SLACK_SIGNING_SECRET: z.preprocess(empty, secret(undefined, 'the signing secret').optional()),
  SLACK_APP_TOKEN: z.preprocess(empty, secret('xapp-', 'an app-level token').optional()),
  SLACK_API_URL: z.preprocess(empty, httpUrl.optional()),
  PROMO_EDITORS: z.preprocess(
    empty,
    z
      .string()
      .default('')
      .transform((text, ctx) => {
        const ids = text
          .split(/[\s,]+/)
          .map((id) => id.trim())
          .filter(Boolean);
        // Entries are named by position, never echoed: a token pasted here must not reach the output.
        const bad = ids.flatMap((id, index) => (/^[UWS][A-Z0-9]{2,}$/.test(id) ? [] : [index + 1]));
        if (bad.length > 0) {
          ctx.addIssue({
            code: 'custom',
            message: `entr${bad.length === 1 ? 'y' : 'ies'} ${bad.join(', ')} ${bad.length === 1 ? 'is not a' : 'are not'} Slack user id${bad.length === 1 ? '' : 's'} (U...) or user-group id${bad.length === 1 ? '' : 's'} (S...) (values not shown)`,
          });
          return z.NEVER;
        }
        return ids;
      }),
  ),
  PORT: port(3000),
  HOST: z.preprocess(empty, z.string().trim().max(255).optional()),
  HEALTH_PORT: port(3001),
  STORE_URL: z.preprocess(
    empty,
    z
      .string()
      .trim()
      .refine((text) => /^(sqlite|rediss?):\/\/.+/i.test(text), {
        message: 'expected sqlite://<path>, redis://<host>:<port> or rediss://<host>:<port> (TLS)',
      })
      .superRefine((text, ctx) => {
        // Only a URL of the right shape is read further: one line per mistake.
        if (!/^rediss?:\/\/.+/i.test(text)) return;
        try {
          parseRedisUrl(text);
        } catch (error) {
          // The parser's messages name the part that is wrong, never the credentials.
          if (!(error instanceof RedisUrlError)) throw error;
          ctx.addIssue({ code: 'custom', message: error.message.replace(/^STORE_URL: /, '') });
        }
      })
      .default('sqlite://./data/eventops.sqlite'),
  ),
  // The local sandbox's own store: a file of its own unless `memory` (never a deployment's STORE_URL).
  SANDBOX_STORE: z.preprocess(
    empty,
    z
      .string()
      .trim()
      .refine((text) => text.toLowerCase() === 'memory' || /^sqlite:\/\/.+/i.test(text), {
        message: 'expected memory (nothing kept after exit) or sqlite://<path>',
      })
      .transform((text) => (text.toLowerCase() === 'memory' ? 'sqlite://:memory:' : text))
      .default(DEFAULT_SANDBOX_STORE),
  ),
  STORE_NAMESPACE: z.preprocess(
    empty,
    z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9_.-]{0,47}$/i, {
        message: 'expected 1 to 48 letters, digits, "_", "." or "-", starting with a letter or digit',
      })
      .default('eventops'),
  ),
  LOG_LEVEL: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : value),
    z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ),
});

type Env = z.output<typeof schema>;

/**
 * Rules between variables. Checked apart from the schema, whose object-level rules zod runs only
 * once every variable is valid on its own: a bad PORT would hide a missing key until the next start.
 */
function ruleProblems(env: Record<string, string | undefined>): { variable: string; message: string }[] {
  const filled = (name: string) => (env[name] ?? '').trim() !== '';
  const apiUrl = schema.shape.TICKETING_API_URL.safeParse(env.TICKETING_API_URL);
  const problems: { variable: string; message: string }[] = [];
  if (apiUrl.success && apiUrl.data && apiUrl.data !== 'simulator' && !filled('TICKETING_API_KEY'))
    problems.push({ variable: 'TICKETING_API_KEY', message: 'required when TICKETING_API_URL is set' });
  // A key with no URL is a service half named: the start would serve demo data instead of it.
  if (filled('TICKETING_API_KEY') && !filled('TICKETING_API_URL'))
    problems.push({
      variable: 'TICKETING_API_URL',
      message: 'required when TICKETING_API_KEY is set (unset both for demo data)',
    });
  // Real people must never see demo data or fake promo changes by accident.
  if (filled('SLACK_BOT_TOKEN') && !filled('TICKETING_API_URL'))
    problems.push({
      variable: 'TICKETING_API_URL',
      message:
        'required when SLACK_BOT_TOKEN is set: the Event Ticketing Service URL, or "simulator" to serve demo data to this workspace on purpose',
    });
  return problems;
}

/**
 * Any Slack variable present means a real workspace, even an empty one (a deploy whose secret
 * came through blank): then the chosen receiver must have all it needs, or a half-configured start
 * would run the sandbox next to this deployment's service. Read from the raw environment, before
 * blanks count as unset.
 */
function slackProblems(env: Record<string, string | undefined>): { variable: string; message: string }[] {
  const given = SLACK_VARIABLES.filter((name) => env[name] !== undefined);
  if (given.length === 0) return [];
  const filled = (name: string) => (env[name] ?? '').trim() !== '';
  const receiver = filled('SLACK_APP_TOKEN') ? 'Socket Mode' : 'the HTTP receiver';
  const needs = ['SLACK_BOT_TOKEN', filled('SLACK_APP_TOKEN') ? 'SLACK_APP_TOKEN' : 'SLACK_SIGNING_SECRET'];
  const why = `${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} set, so this is a real workspace (an empty value counts; unset every SLACK_ variable for the local sandbox)`;
  return needs
    .filter((need) => !filled(need))
    .map((need) => ({
      variable: need,
      message: `required for ${receiver}${env[need] === undefined ? '' : ' (it is set but empty)'}${need === 'SLACK_SIGNING_SECRET' ? ' (or set SLACK_APP_TOKEN to use Socket Mode instead)' : ''}: ${why}`,
    }));
}

/** Every environment variable the configuration reads (for the docs and deploy files' checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

/** A variable set that looks like one of ours but is not read, and the one it most resembles. */
export type UnreadVariable = { variable: string; resembles: string | undefined };

/** The first words of our variables (`TICKETING_`, `SLACK_`, ...): a name that starts with one is meant for us. */
const OUR_PREFIXES = new Set(CONFIG_VARIABLES.filter((name) => name.includes('_')).map((name) => name.split('_')[0]));

/** Variables set with our prefixes (or a typo from our names) that nothing reads, as `TICKETING_API_ULR`. */
export function unreadVariables(env: Record<string, string | undefined>): UnreadVariable[] {
  return Object.keys(env)
    .filter((name) => env[name] !== undefined && !CONFIG_VARIABLES.includes(name))
    .map((variable) => ({ variable, resembles: didYouMean(variable, CONFIG_VARIABLES, { max: 1 })[0] }))
    .filter(
      ({ variable, resembles }) =>
        OUR_PREFIXES.has(variable.split('_')[0] as string) || (resembles && variable.length >= 7),
    )
    .sort((a, b) => a.variable.localeCompare(b.variable));
}

/** One line for an unread variable: its name, and the variable it resembles. */
export function unreadVariableWords({ variable, resembles }: UnreadVariable): string {
  return `${variable} is set but eventops reads no such variable${resembles ? `: did you mean ${resembles}?` : ''}`;
}

/**
 * The bot's validated configuration: what `loadConfig` makes of the environment it is handed
 * (by `main.ts`, the sandbox stack and the `eventops` CLI); the bot's modules receive it, never
 * the environment.
 */
export interface Config {
  /** `sandbox` only when no Slack variable is set: the local sandbox, on a store of its own. */
  mode: 'workspace' | 'sandbox';
  ticketing: {
    /** `simulator`: the built-in demo service, chosen explicitly. Absent: only without Slack credentials. */
    apiUrl: string | undefined;
    apiKey: string | undefined;
    orgLimit: RateLimitSpec;
    reportLimit: RateLimitSpec;
    reportCacheTtlMs: number;
    backgroundReserve: number;
    /** Reports one person may have waiting; the next is refused at once, naming those that wait. */
    reportsWaitingPerPerson: number;
    /** Reports every "Get event report" step together may have waiting; the next step fails at once. */
    reportStepsWaiting: number;
    /** Watches get at least one report slot in every this many report windows, even while people's reports wait. */
    watchSlotEveryWindows: number;
  };
  slack: {
    botToken: string | undefined;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
    promoEditors: string[];
    /** Where event cards unfolded from links show report figures. @default 'internal' */
    unfurlFigures: UnfurlFigures;
    /** How event links unfold. @default 'work-object' */
    unfurlStyle: UnfurlStyle;
    /** Whether a report's wait in a channel streams where Slack lets it. @default 'on' */
    reportStreaming: ReportStreaming;
  };
  /** The MCP server (`MCP_SERVER`, `MCP_PORT`, `MCP_TOKEN_TTL`, `MCP_CALLS_PER_PERSON`). */
  mcp: {
    /** @default false (on in the local sandbox) */
    on: boolean;
    /** Socket Mode: where /mcp listens (the HTTP receiver serves it on `port`). @default 3002 */
    port: number;
    /** @default 30 days */
    tokenTtlMs: number;
    /** Tool calls one person makes in a window. @default 30 a minute */
    callsPerPerson: RateLimitSpec;
  };
  /** What the figures rule lets guests read (`FIGURES_FOR_GUESTS`). @default guests see no figures */
  figuresPolicy: FiguresPolicy;
  /** A digest is still sent this long after its time: caught up after a restart, or retried after a failure. */
  digestGraceMs: number;
  /**
   * With replicas: how long a replica holds a report job before the others may take it over (and
   * how often they look). A killed replica's reports are fetched by another within about twice this.
   */
  reportJobLockMs: number;
  /**
   * The watches' own checks of one event are at least this far apart; with W events watched and
   * the report slots free, each is checked at least every max(ceil(W / report limit) windows, this).
   * A report a person fetches counts as a check too, whenever it comes.
   */
  watchMinIntervalMs: number;
  /** Most active watches one person sets up, in all conversations (each watched event stretches everyone's checks). @default 20 */
  watchesPerPerson: number;
  /** How long promo changes stay in the audit (`PROMO_AUDIT_KEEP`). @default 90 days */
  promoAuditKeep: AuditKeep;
  /** The public event page template (`{id}`): its links unfold into event cards. */
  eventPageUrl: string | undefined;
  /** The HTTP receiver's port (it serves /healthz, /readyz and /metrics too); in the local sandbox, the page's. */
  port: number;
  /**
   * The interface the HTTP receiver, or in Socket Mode the health server, binds (`127.0.0.1` for
   * loopback only); all interfaces when absent. The local sandbox ignores it and binds 127.0.0.1.
   */
  host: string | undefined;
  /** Socket Mode: where /healthz, /readyz and /metrics listen (the HTTP receiver serves them on `port`). */
  healthPort: number;
  storeUrl: string;
  /** The local sandbox's store (`SANDBOX_STORE`): a SQLite URL, `sqlite://:memory:` for none kept. */
  sandboxStoreUrl: string;
  /** Every key the bot writes to a shared store starts with it (two deployments on one Redis). */
  storeNamespace: string;
  logLevel: (typeof LOG_LEVELS)[number];
}

export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(
    readonly problems: { variable: string; message: string }[],
    readonly unread: UnreadVariable[] = [],
  ) {
    const lines = [...problems.map((p) => `${p.variable}: ${p.message}`), ...unread.map(unreadVariableWords)];
    super(`Invalid configuration:\n${lines.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** The environment without its Slack variables: for the `eventops` CLI, which never talks to Slack. */
export function withoutSlack(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !(SLACK_VARIABLES as readonly string[]).includes(name)),
  );
}

/** Validates the environment passed in; throws `ConfigError` naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = schema.safeParse(env);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues).map((issue) => ({
      variable: String(issue.path[0] ?? '(environment)'),
      message: issue.message,
    })),
    ...ruleProblems(env),
    ...slackProblems(env),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems, unreadVariables(env));
  const e: Env = parsed.data;
  return {
    mode: e.SLACK_BOT_TOKEN ? 'workspace' : 'sandbox',
    ticketing: {
      apiUrl: e.TICKETING_API_URL,
      apiKey: e.TICKETING_API_KEY,
      orgLimit: e.TICKETING_ORG_LIMIT,
      reportLimit: e.TICKETING_REPORT_LIMIT,
      reportCacheTtlMs: e.TICKETING_REPORT_CACHE_TTL,
      backgroundReserve: e.TICKETING_BACKGROUND_RESERVE,
      reportsWaitingPerPerson: e.REPORTS_WAITING_PER_PERSON,
      reportStepsWaiting: e.REPORT_STEPS_WAITING,
      watchSlotEveryWindows: e.WATCH_SLOT_EVERY_WINDOWS,
    },
    slack: {
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      promoEditors: e.PROMO_EDITORS,
      unfurlFigures: e.UNFURL_FIGURES,
      unfurlStyle: e.UNFURL_STYLE,
      reportStreaming: e.REPORT_STREAMING,
    },
    mcp: {
      on: e.MCP_SERVER === 'on',
      port: e.MCP_PORT,
      tokenTtlMs: e.MCP_TOKEN_TTL,
      callsPerPerson: e.MCP_CALLS_PER_PERSON,
    },
    figuresPolicy: { guestsMaySee: e.FIGURES_FOR_GUESTS },
    digestGraceMs: e.DIGEST_GRACE,
    reportJobLockMs: e.REPORT_JOB_LOCK,
    watchMinIntervalMs: e.WATCH_MIN_INTERVAL,
    watchesPerPerson: e.WATCHES_PER_PERSON,
    promoAuditKeep: e.PROMO_AUDIT_KEEP,
    eventPageUrl: e.EVENT_PAGE_URL,
    port: e.PORT,
    host: e.HOST,
    healthPort: e.HEALTH_PORT,
    storeUrl: e.STORE_URL,
    sandboxStoreUrl: e.SANDBOX_STORE,
    storeNamespace: e.STORE_NAMESPACE,
    logLevel: e.LOG_LEVEL,
  };
}
