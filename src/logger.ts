import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';

/** Severity, lowest first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

/** The narrow logger every module is given (pino underneath). */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where each finished line goes. @default standard error */
  write?: (line: string) => void;
  /** Values that must never appear in a log line (API keys, tokens, signing secrets). */
  secrets?: readonly (string | undefined)[];
}

/**
 * The request a line belongs to: set around each Slack request, so the command's line and the API
 * calls it makes carry the same `requestId`, however deep in the client they are logged.
 */
const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export function withRequestId<T>(requestId: string, work: () => T): T {
  return requestContext.run({ requestId }, work);
}

/** Fields that hold credentials wherever they appear: redacted by path. */
const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'botToken',
  'appToken',
  'signingSecret',
  '*.signingSecret',
  'authorization',
  '*.authorization',
  'headers["service-api-key"]',
  '*.headers["service-api-key"]',
];

function errorFields(error: Error): LogFields {
  const fields: LogFields = { name: error.name, message: error.message };
  if ('code' in error && typeof error.code === 'string') fields.code = error.code;
  if (error.cause instanceof Error) fields.cause = errorFields(error.cause);
  return fields;
}

function serialise(fields: LogFields | undefined): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields ?? {}))
    out[key] = value instanceof Error ? errorFields(value) : value;
  return out;
}

function wrap(instance: pino.Logger): Logger {
  return {
    debug: (message, fields) => instance.debug(serialise(fields), message),
    info: (message, fields) => instance.info(serialise(fields), message),
    warn: (message, fields) => instance.warn(serialise(fields), message),
    error: (message, fields) => instance.error(serialise(fields), message),
    child: (fields) => wrap(instance.child(serialise(fields))),
  };
}

/**
 * JSON lines from pino: an ISO time, the level by name, the message, the request id when there is
 * one. Credentials are redacted by path, and every finished line is scrubbed of the configured
 * secrets too, so a key that reaches a message by accident still never reaches the log.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  // Each secret also as it appears inside a JSON string (a quote or backslash in it is escaped there).
  const secrets = (options.secrets ?? [])
    .filter((s): s is string => typeof s === 'string' && s.length >= 6)
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]);
  const scrub = (line: string) => secrets.reduce((text, secret) => text.replaceAll(secret, '[redacted]'), line);
  const write = options.write;
  const destination = write ? { write: (line: string) => write(line.replace(/\n$/, '')) } : pino.destination(2);
  const instance = pino(
    {
      level: options.level ?? 'info',
      base: null,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // A copy: pino merges each line's fields into what the mixin returns, which would keep them
      // in the request's context for its later lines.
      mixin: () => ({ ...requestContext.getStore() }),
      hooks: { streamWrite: scrub },
    },
    destination,
  );
  return wrap(instance);
}

/** A logger that drops everything (the default where none is passed). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
