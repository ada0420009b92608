import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../logger.js';

const toText = (parts: unknown[]) =>
  parts.map((part) => (part instanceof Error ? part.message : String(part))).join(' ');

/** Bolt's logger interface over ours, so Bolt's lines are JSON and scrubbed of secrets too. */
export function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const log = logger.child({ component: 'bolt' });
  return {
    debug: (...parts) => log.debug(toText(parts)),
    info: (...parts) => log.info(toText(parts)),
    warn: (...parts) => log.warn(toText(parts)),
    error: (...parts) => log.error(toText(parts)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
