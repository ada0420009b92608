import { isIP } from 'node:net';
import { NamedError } from '../named-error.js';
import type { RedisConnection } from './store-handle.js';

/** A `STORE_URL` that names Redis but cannot be used; the message never holds the credentials. */
export class RedisUrlError extends NamedError {
  readonly code = 'invalid_redis_url';
}

/** The schemes that name Redis: `rediss://` is TLS, as managed services require. */
export const REDIS_SCHEMES = ['redis', 'rediss'] as const;

/**
 * Percent-decodes what is validly encoded and keeps every other `%` as it is, so a password
 * pasted raw (`Pa%ss`) and one pasted encoded (`Pa%25ss`) both arrive as typed.
 */
const lenientDecode = (text: string) =>
  text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });

/**
 * Reads `redis[s]://[user[:password]@]host[:port][/db]` by hand rather than with `URL`: a raw
 * password may hold `@`, `:`, `/`, `#` or `%`, which a URL parser splits on or refuses. The
 * credentials end at the last `@`; the user ends at the first `:` of what precedes it.
 */
export function parseRedisUrl(url: string): RedisConnection {
  const scheme = /^(rediss?):\/\//i.exec(url.trim());
  if (!scheme?.[1]) throw new RedisUrlError('STORE_URL: expected redis://host:port or rediss://host:port');
  const rest = url.trim().slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  const credentials = at >= 0 ? rest.slice(0, at) : undefined;
  const address = at >= 0 ? rest.slice(at + 1) : rest;
  const match = /^(\[[0-9a-f:.]+\]|[^:/?#\s]+)(?::(\d{1,5}))?(?:\/(\d*))?\/?$/i.exec(address);
  // The address is after the credentials, so naming what is wrong with it shows no secret.
  if (!match?.[1]) {
    throw new RedisUrlError('STORE_URL: expected host[:port][/db] after the scheme and any user:password@');
  }
  const port = Number(match[2] ?? 6379);
  if (!(port >= 1 && port <= 65_535)) throw new RedisUrlError('STORE_URL: the Redis port must be from 1 to 65535');
  const db = Number(match[3] || 0);
  const colon = credentials?.indexOf(':') ?? -1;
  const username =
    credentials === undefined ? '' : lenientDecode(colon >= 0 ? credentials.slice(0, colon) : credentials);
  const password = credentials !== undefined && colon >= 0 ? lenientDecode(credentials.slice(colon + 1)) : '';
  const host = match[1].replace(/^\[|\]$/g, '');
  const tls = scheme[1].toLowerCase() === 'rediss';
  return {
    host,
    port,
    db,
    ...(tls ? { tls: isIP(host) ? {} : { servername: host } } : {}),
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}

/** Where a connection goes, for logs and errors: scheme, host, port and db, never credentials. */
export const describeRedis = (connection: RedisConnection) =>
  `${connection.tls ? 'rediss' : 'redis'}://${connection.host.includes(':') ? `[${connection.host}]` : connection.host}:${connection.port}/${connection.db}`;

/**
 * Every form the credentials could be logged in (the userinfo as typed, the password decoded and
 * encoded), for the log scrubber; a URL too broken to read is a secret as a whole.
 */
export function redisSecrets(url: string): string[] {
  const text = url.trim();
  if (!/^rediss?:\/\//i.test(text)) return [];
  const at = text.lastIndexOf('@');
  const userinfo = at >= 0 ? text.slice(text.indexOf('://') + 3, at) : '';
  try {
    const { password } = parseRedisUrl(text);
    return [...new Set([userinfo, ...(password ? [password, encodeURIComponent(password)] : [])])].filter(Boolean);
  } catch {
    return [text];
  }
}
