/** Severity, lowest first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

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
  /** Where each finished line goes. @default process.stderr */
  write?: (line: string) => void;
  /** Values that must never appear in a log line (API keys, tokens, signing secrets). */
  secrets?: readonly (string | undefined)[];
}

function errorFields(error: Error): LogFields {
  const fields: LogFields = { name: error.name, message: error.message };
  if ('code' in error && typeof error.code === 'string') fields.code = error.code;
  if (error.cause instanceof Error) fields.cause = errorFields(error.cause);
  return fields;
}

function serialise(value: unknown): unknown {
  if (value instanceof Error) return errorFields(value);
  return value;
}

/**
 * JSON lines with a time, a level and a message. Every finished line is scrubbed of the
 * configured secrets, so a key that reaches a message by accident still never reaches the log.
 */
export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 6);

  const log = (level: LogLevel, message: string, fields: LogFields = {}) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record: LogFields = { time: new Date().toISOString(), level, msg: message, ...bound };
    for (const [key, value] of Object.entries(fields)) record[key] = serialise(value);
    let line = JSON.stringify(record);
    for (const secret of secrets) line = line.replaceAll(secret, '[redacted]');
    write(line);
  };

  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything (the default where none is passed). */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
