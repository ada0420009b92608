import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig, parseRateLimit, unreadVariables } from '../src/config.js';
import { fakeSlackToken } from './helpers/fake-tokens.js';

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config.ticketing.orgLimit).toEqual({ limit: 180, windowMs: 60_000 });
    expect(config.ticketing.reportLimit).toEqual({ limit: 3, windowMs: 60_000 });
    expect(config.ticketing.apiUrl).toBeUndefined();
    expect(config.port).toBe(3000);
    expect(config.storeUrl).toBe('sqlite://./data/eventops.sqlite');
    expect(config.logLevel).toBe('info');
    expect(config.slack.promoEditors).toEqual([]);
    expect(config.mcp).toEqual({
      on: false,
      port: 3002,
      tokenTtlMs: 30 * 86_400_000,
      callsPerPerson: { limit: 30, windowMs: 60_000 },
    });
  });

  it('reads MCP_TOKEN_TTL in days as .env.example writes it (30d), and refuses under a minute', () => {
    expect(loadConfig({ MCP_TOKEN_TTL: '30d' }).mcp.tokenTtlMs).toBe(30 * 86_400_000);
    expect(loadConfig({ MCP_TOKEN_TTL: '12h', MCP_SERVER: 'on' }).mcp).toMatchObject({
      on: true,
      tokenTtlMs: 43_200_000,
    });
    expect(() => loadConfig({ MCP_TOKEN_TTL: '30s' })).toThrow(/MCP_TOKEN_TTL: expected at least 1m/);
  });

  it('reads every variable it is given', () => {
    const config = loadConfig({
      TICKETING_API_URL: 'https://api.example.com',
      TICKETING_API_KEY: 'sk_live_abcdef',
      TICKETING_ORG_LIMIT: '120/30s',
      TICKETING_REPORT_LIMIT: '2/1m',
      SLACK_BOT_TOKEN: fakeSlackToken('b', 'test'),
      SLACK_SIGNING_SECRET: 'shh',
      PROMO_EDITORS: 'U012AB, S0GROUP',
      PORT: '8080',
      STORE_URL: 'sqlite:///tmp/x.sqlite',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config.ticketing.orgLimit).toEqual({ limit: 120, windowMs: 30_000 });
    expect(config.ticketing.reportLimit).toEqual({ limit: 2, windowMs: 60_000 });
    expect(config.slack.promoEditors).toEqual(['U012AB', 'S0GROUP']);
    expect(config.port).toBe(8080);
    expect(config.logLevel).toBe('debug');
  });

  it('names every bad variable and what was expected, never echoing a secret', () => {
    let error: unknown;
    try {
      loadConfig({
        TICKETING_API_URL: 'ftp://nope',
        TICKETING_ORG_LIMIT: 'lots',
        PORT: '70000',
        SLACK_BOT_TOKEN: fakeSlackToken('p', 'secret-user-token'),
        LOG_LEVEL: 'loud',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(problems).toEqual([
      'LOG_LEVEL',
      'PORT',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'TICKETING_API_URL',
      'TICKETING_ORG_LIMIT',
    ]);
    const message = (error as Error).message;
    expect(message).toContain('TICKETING_ORG_LIMIT: expected <requests>/<window> such as "180/60s", got "lots"');
    expect(message).not.toContain(fakeSlackToken('p', 'secret-user-token'));
  });

  it('requires the key with the URL, and a signing secret or app token with the bot token', () => {
    expect(() => loadConfig({ TICKETING_API_URL: 'http://127.0.0.1:1' })).toThrow(/TICKETING_API_KEY: required/);
    expect(() => loadConfig({ SLACK_BOT_TOKEN: fakeSlackToken('b', '1'), TICKETING_API_URL: 'simulator' })).toThrow(
      /SLACK_SIGNING_SECRET: required/,
    );
    expect(
      loadConfig({
        SLACK_BOT_TOKEN: fakeSlackToken('b', '1'),
        SLACK_APP_TOKEN: 'xapp-1',
        TICKETING_API_URL: 'simulator',
      }).slack.appToken,
    ).toBe('xapp-1');
  });

  // The rules between variables ran only once every variable was valid alone: a bad PORT hid them.
  it('names a rule between variables beside a variable that is bad on its own', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((p) => p.variable).sort();
      }
    };
    expect(problems({ TICKETING_API_URL: 'http://127.0.0.1:1', PORT: 'abc' })).toEqual(['PORT', 'TICKETING_API_KEY']);
    expect(
      problems({ SLACK_BOT_TOKEN: fakeSlackToken('b', '1'), SLACK_SIGNING_SECRET: 'shh', LOG_LEVEL: 'loud' }),
    ).toEqual(['LOG_LEVEL', 'TICKETING_API_URL']);
    // A URL that is bad itself asks for no key; a broken Redis URL is one line, not two.
    expect(problems({ TICKETING_API_URL: 'ftp://nope' })).toEqual(['TICKETING_API_URL']);
    expect(problems({ STORE_URL: 'redis://' })).toEqual(['STORE_URL']);
  });

  it('offers SLACK_APP_TOKEN where the HTTP receiver’s signing secret is missing', () => {
    expect(() => loadConfig({ SLACK_BOT_TOKEN: fakeSlackToken('b', '1'), TICKETING_API_URL: 'simulator' })).toThrow(
      /SLACK_SIGNING_SECRET: required for the HTTP receiver \(or set SLACK_APP_TOKEN to use Socket Mode instead\)/,
    );
  });

  it('refuses to serve demo data to a real workspace: Slack credentials need TICKETING_API_URL', () => {
    const slack = { SLACK_BOT_TOKEN: fakeSlackToken('b', 'real-looking'), SLACK_SIGNING_SECRET: 'secret-value-1234' };
    expect(() => loadConfig(slack)).toThrow(/TICKETING_API_URL: required when SLACK_BOT_TOKEN is set/);
    expect(loadConfig({ ...slack, TICKETING_API_URL: 'simulator' }).ticketing.apiUrl).toBe('simulator');
    expect(() => loadConfig({ ...slack, TICKETING_API_URL: 'ftp://example.com' })).toThrow(
      /TICKETING_API_URL: expected an http\(s\) URL, or "simulator"/,
    );
  });

  it('requires the bot token with an app token', () => {
    expect(() => loadConfig({ SLACK_APP_TOKEN: 'xapp-1', TICKETING_API_URL: 'simulator' })).toThrow(
      /SLACK_BOT_TOKEN: required for Socket Mode: SLACK_APP_TOKEN is set/,
    );
  });

  // A signing secret alone used to start the sandbox on the configured store and service.
  it('treats any Slack variable as a real workspace and names what its receiver still needs', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ TICKETING_API_URL: 'simulator', ...env });
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((p) => p.variable).sort();
      }
    };
    expect(problems({ SLACK_SIGNING_SECRET: 'shh-secret-value' })).toEqual(['SLACK_BOT_TOKEN']);
    expect(problems({ SLACK_API_URL: 'http://127.0.0.1:9/api/' })).toEqual(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET']);
    expect(problems({ SLACK_BOT_TOKEN: fakeSlackToken('b', '1') })).toEqual(['SLACK_SIGNING_SECRET']);
    expect(problems({ SLACK_APP_TOKEN: 'xapp-1', SLACK_SIGNING_SECRET: 'shh-secret-value' })).toEqual([
      'SLACK_BOT_TOKEN',
    ]);
    expect(() => loadConfig({ SLACK_SIGNING_SECRET: 'shh-secret-value' })).toThrow(
      /SLACK_BOT_TOKEN: required for the HTTP receiver: SLACK_SIGNING_SECRET is set, so this is a real workspace/,
    );
    // A secret that came through blank (compose's `${SLACK_BOT_TOKEN}` with nothing behind it) is
    // still a real workspace, not the sandbox.
    expect(problems({ SLACK_BOT_TOKEN: '', SLACK_SIGNING_SECRET: '  ' })).toEqual([
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
    ]);
    expect(() => loadConfig({ SLACK_BOT_TOKEN: '' })).toThrow(
      /SLACK_BOT_TOKEN: required for the HTTP receiver \(it is set but empty\)/,
    );
    expect(loadConfig({}).mode).toBe('sandbox');
    expect(
      loadConfig({
        SLACK_BOT_TOKEN: fakeSlackToken('b', '1'),
        SLACK_SIGNING_SECRET: 'x',
        TICKETING_API_URL: 'simulator',
      }).mode,
    ).toBe('workspace');
  });

  it('refuses durations that mean nothing at 0, and reads a report cache TTL of 0 as no cache', () => {
    for (const lock of ['0s', '0', '1ms', '0.5ms', '999ms']) {
      expect(() => loadConfig({ REPORT_JOB_LOCK: lock }), lock).toThrow(/REPORT_JOB_LOCK: expected at least 1s/);
    }
    expect(loadConfig({ REPORT_JOB_LOCK: '1.5s' }).reportJobLockMs).toBe(1_500);
    expect(loadConfig({ TICKETING_REPORT_CACHE_TTL: '0' }).ticketing.reportCacheTtlMs).toBe(0);
    expect(() => loadConfig({ TICKETING_REPORT_LIMIT: '3/0s' })).toThrow(/TICKETING_REPORT_LIMIT/);
    expect(() => loadConfig({ TICKETING_REPORT_LIMIT: '0/60s' })).toThrow(/TICKETING_REPORT_LIMIT/);
    expect(loadConfig({ TICKETING_REPORT_CACHE_TTL: '0s' }).ticketing.reportCacheTtlMs).toBe(0);
  });

  it('takes a namespace for every key, and refuses one that would break a key or its hash tag', () => {
    expect(loadConfig({}).storeNamespace).toBe('eventops');
    expect(loadConfig({ STORE_NAMESPACE: 'staging-eu' }).storeNamespace).toBe('staging-eu');
    for (const bad of ['a:b', '{x}', 'has space', '-lead', 'x'.repeat(49)]) {
      expect(() => loadConfig({ STORE_NAMESPACE: bad }), bad).toThrow(/STORE_NAMESPACE: expected 1 to 48 letters/);
    }
  });

  it('accepts rediss:// for TLS and names a broken Redis URL without echoing its password', () => {
    expect(loadConfig({ STORE_URL: 'rediss://:s3cr@t:Pa%ss@cache.example.com:6380/2' }).storeUrl).toMatch(/^rediss:/);
    let message = '';
    try {
      loadConfig({ STORE_URL: 'redis://:s3cr@t:Pa%ss@cache.example.com:notaport' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/STORE_URL: expected host\[:port\]\[\/db\]/);
    for (const part of ['s3cr', 'Pa%ss', 't:Pa']) expect(message).not.toContain(part);
  });

  it('names a bad PROMO_EDITORS entry by its position and never echoes it', () => {
    const pasted = fakeSlackToken('b', '1234567890-secretsecret');
    let message = '';
    try {
      loadConfig({ PROMO_EDITORS: `U0OK, ${pasted}, S0GROUP, nope` });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/PROMO_EDITORS: entries 2, 4 are not Slack user ids/);
    expect(message).not.toContain('secretsecret');
    expect(message).not.toContain('nope');
  });

  it('reads UNFURL_FIGURES as internal, off or everywhere (internal by default) and names a wrong value', () => {
    expect(loadConfig({}).slack.unfurlFigures).toBe('internal');
    expect(loadConfig({ UNFURL_FIGURES: '' }).slack.unfurlFigures).toBe('internal');
    expect(loadConfig({ UNFURL_FIGURES: 'off' }).slack.unfurlFigures).toBe('off');
    expect(loadConfig({ UNFURL_FIGURES: ' Everywhere ' }).slack.unfurlFigures).toBe('everywhere');
    expect(() => loadConfig({ UNFURL_FIGURES: 'external' })).toThrow(
      /UNFURL_FIGURES: expected one of internal, off, everywhere, got "external"/,
    );
  });

  it('reads the per-person report limits and the watches\u2019 share, with defaults a real team never meets', () => {
    const defaults = loadConfig({}).ticketing;
    expect(defaults).toMatchObject({ reportsWaitingPerPerson: 5, reportStepsWaiting: 10, watchSlotEveryWindows: 5 });
    const given = loadConfig({
      REPORTS_WAITING_PER_PERSON: '3',
      REPORT_STEPS_WAITING: ' 20 ',
      WATCH_SLOT_EVERY_WINDOWS: '',
    }).ticketing;
    expect(given).toMatchObject({ reportsWaitingPerPerson: 3, reportStepsWaiting: 20, watchSlotEveryWindows: 5 });
    let error: unknown;
    try {
      loadConfig({ REPORTS_WAITING_PER_PERSON: '0', REPORT_STEPS_WAITING: '2.5', WATCH_SLOT_EVERY_WINDOWS: 'often' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = Object.fromEntries((error as ConfigError).problems.map((p) => [p.variable, p.message]));
    expect(problems).toEqual({
      REPORTS_WAITING_PER_PERSON: 'expected a whole number of at least 1, such as 5',
      REPORT_STEPS_WAITING: 'expected a whole number of at least 1, such as 10',
      WATCH_SLOT_EVERY_WINDOWS: 'expected a whole number of at least 1, such as 5',
    });
  });

  it('reads how many active watches one person may set up, 20 by default', () => {
    expect(loadConfig({}).watchesPerPerson).toBe(20);
    expect(loadConfig({ WATCHES_PER_PERSON: '3' }).watchesPerPerson).toBe(3);
    expect(() => loadConfig({ WATCHES_PER_PERSON: '-1' })).toThrow(ConfigError);
  });

  it('a key without its URL is one clear problem, not demo data, and a mistyped URL is named with the one it resembles', () => {
    const error = (() => {
      try {
        loadConfig({ TICKETING_API_ULR: 'https://tickets.example.com', TICKETING_API_KEY: 'sk_live_0123456789' });
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('a key with no URL started');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.problems.map((p) => p.variable)).toEqual(['TICKETING_API_URL']);
    expect(error.problems[0]?.message).toMatch(/^required when TICKETING_API_KEY is set/);
    expect(error.message).toContain(
      'TICKETING_API_ULR is set but eventops reads no such variable: did you mean TICKETING_API_URL?',
    );
    expect(error.message).not.toContain('sk_live_0123456789');
    expect(error.message).not.toContain('tickets.example.com');
  });

  it('names unread variables with our prefixes, or close to one of our names, and ignores the rest', () => {
    expect(
      unreadVariables({
        TICKETING_API_ULR: 'x',
        WATCH_MIN_INTERVALL: '5m',
        SLACK_SIGNNG_SECRET: 's',
        TICKETNG_ORG_LIMIT: '1/1s',
        PATH: '/usr/bin',
        HOME: '/root',
        PORTS: '1',
        NODE_OPTIONS: '',
        TICKETING_API_URL: 'simulator',
        REPORT_STREAMING: 'on',
      }),
    ).toEqual([
      { variable: 'SLACK_SIGNNG_SECRET', resembles: 'SLACK_SIGNING_SECRET' },
      { variable: 'TICKETING_API_ULR', resembles: 'TICKETING_API_URL' },
      { variable: 'TICKETNG_ORG_LIMIT', resembles: 'TICKETING_ORG_LIMIT' },
      { variable: 'WATCH_MIN_INTERVALL', resembles: 'WATCH_MIN_INTERVAL' },
    ]);
    expect(unreadVariables({ TICKETING_SOMETHING_ELSE_ENTIRELY: '1' })).toEqual([
      { variable: 'TICKETING_SOMETHING_ELSE_ENTIRELY', resembles: undefined },
    ]);
  });

  it('parses rate limits in ms, s, m and h', () => {
    expect(parseRateLimit('30/500ms')).toEqual({ limit: 30, windowMs: 500 });
    expect(parseRateLimit('1000/1h')).toEqual({ limit: 1000, windowMs: 3_600_000 });
    expect(parseRateLimit('0/60s')).toBeUndefined();
    expect(parseRateLimit('180')).toBeUndefined();
  });
});

describe('the deploy files and the docs name only variables the configuration reads, and all of them', () => {
  const read = (file: string) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

  it(".env.example and the configuration guide's table list every variable, and nothing else", () => {
    const example = new Set([...read('.env.example').matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]));
    const table = new Set([...read('docs/configuration.md').matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1]));
    for (const name of CONFIG_VARIABLES) {
      expect(example, `.env.example lacks ${name}`).toContain(name);
      expect(table, `docs/configuration.md's table lacks ${name}`).toContain(name);
    }
    for (const name of example) expect(CONFIG_VARIABLES).toContain(name);
    for (const name of table) expect(CONFIG_VARIABLES).toContain(name);
  });

  it('compose.yml runs two replicas on Redis with variables the configuration knows', () => {
    const compose = read('compose.yml');
    const environment = compose.slice(compose.indexOf('    environment:'), compose.indexOf('    depends_on:'));
    const names = [...environment.matchAll(/^ {6}([A-Z_]+):/gm)].map((match) => match[1]);
    expect(names).toContain('STORE_URL');
    for (const name of names) expect(CONFIG_VARIABLES).toContain(name);
    expect(compose).toMatch(/STORE_URL: redis:\/\/redis:6379/);
    expect(compose).toMatch(/replicas: 2/);
    const env = Object.fromEntries(
      [...environment.matchAll(/^ {6}([A-Z_]+): "?([^"\n]*)"?$/gm)].map((match) => [match[1], match[2]]),
    );
    expect(() => loadConfig(env)).not.toThrow();
  });
});
