import { errorChain } from '../error-chain.js';
import { StoreError } from './key-value-store.js';

/** What Redis (or its TLS) refused: a lasting answer no reconnect mends. */
export type RedisRefusalKind = 'untrusted_certificate' | 'refused_password' | 'password_required' | 'no_password_set';

export interface RedisRefusal {
  kind: RedisRefusalKind;
  /** Node's TLS code or Redis's reply word (`WRONGPASS`, `NOAUTH`), never the reply's text. */
  code: string;
}

/** TLS verification failures (Node's codes): the server's certificate is not one this process trusts. */
const UNTRUSTED_CERTIFICATE = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Refused logins by Redis's reply (Redis 6 and later, and Redis 5's words), each with the word the message gives. */
const LOGIN_REPLIES: [RegExp, RedisRefusalKind, string][] = [
  [/^WRONGPASS\b/, 'refused_password', 'WRONGPASS'],
  [/^ERR invalid password/, 'refused_password', 'ERR invalid password'],
  [/^NOAUTH\b/, 'password_required', 'NOAUTH'],
  [
    /^ERR (AUTH .* called without any password configured|Client sent AUTH, but no password is set)/,
    'no_password_set',
    'ERR AUTH',
  ],
];

/** The refusal `error` carries, wherever node-redis or keyv wrapped it; none for an outage. */
export function redisRefusal(error: unknown): RedisRefusal | undefined {
  for (const cause of errorChain(error)) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && UNTRUSTED_CERTIFICATE.has(code)) return { kind: 'untrusted_certificate', code };
    for (const [reply, kind, word] of LOGIN_REPLIES) if (reply.test(cause.message)) return { kind, code: word };
  }
  return undefined;
}

/** Why the start could not use Redis: a refusal by name, or `unreachable`. */
export type RedisStartReason = RedisRefusalKind | 'unreachable';

/** The store's start failed on Redis: the message is the operator's, naming the address and what to mend. */
export class RedisStartError extends StoreError {
  readonly reason: RedisStartReason;
  constructor(message: string, reason: RedisStartReason, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

const CERTIFICATE_MENDS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'that has expired',
  CERT_NOT_YET_VALID: 'not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'for another host name',
};

/**
 * The start's failure in an operator's words, from what Redis answered however that answer was timed
 * against the start's read. `where` is the address without credentials; nothing of Redis's reply text
 * is kept in the message (its word only).
 */
export function redisStartError(where: string, error: unknown): RedisStartError {
  const refusal = redisRefusal(error);
  const options = { cause: error };
  switch (refusal?.kind) {
    case 'untrusted_certificate': {
      const mend = CERTIFICATE_MENDS[refusal.code];
      return new RedisStartError(
        mend
          ? `STORE_URL: Redis at ${where} presented a TLS certificate ${mend} (${refusal.code})`
          : `STORE_URL: Redis at ${where} presented a TLS certificate this process does not trust (${refusal.code}); add the CA that signed it to NODE_EXTRA_CA_CERTS`,
        refusal.kind,
        options,
      );
    }
    case 'refused_password':
      return new RedisStartError(
        `STORE_URL: Redis at ${where} refused the user and password in STORE_URL (${refusal.code})`,
        refusal.kind,
        options,
      );
    case 'password_required':
      return new RedisStartError(
        `STORE_URL: Redis at ${where} asks for a password and STORE_URL gives none (${refusal.code})`,
        refusal.kind,
        options,
      );
    case 'no_password_set':
      return new RedisStartError(
        `STORE_URL: Redis at ${where} has no password, but STORE_URL gives one; remove it from the URL`,
        refusal.kind,
        options,
      );
    default: {
      const causes = [...errorChain(error)];
      const codes = causes.map((cause) => (cause as { code?: unknown }).code);
      // Reached, but not as this URL says: TLS to a server without it, or plain text to one with it.
      const tls = codes.find((code): code is string => typeof code === 'string' && /^(ERR_SSL_|EPROTO$)/.test(code));
      if (tls)
        return new RedisStartError(
          `STORE_URL: the TLS handshake with Redis at ${where} failed (${tls}); a server without TLS takes redis://, not rediss://`,
          'unreachable',
          options,
        );
      if (causes.some((cause) => cause.name === 'SocketClosedUnexpectedlyError') && !where.startsWith('rediss:'))
        return new RedisStartError(
          `STORE_URL: Redis at ${where} closed the connection at once; a server that requires TLS takes rediss://`,
          'unreachable',
          options,
        );
      // Redis answered, with an error (a database number it does not have): its first words, no more.
      const reply = causes.find((cause) => cause.name === 'ErrorReply' || /^ERR /.test(cause.message));
      if (reply)
        return new RedisStartError(
          `STORE_URL: Redis at ${where} answered with an error (${reply.message.split('\n')[0]?.slice(0, 80)})`,
          'unreachable',
          options,
        );
      const code = codes.find(isSystemCode);
      return new RedisStartError(
        `STORE_URL: could not reach Redis at ${where}${code ? ` (${code})` : ''}`,
        'unreachable',
        options,
      );
    }
  }
}

/** A system error's code (`ECONNREFUSED`, `ETIMEDOUT`, `ENOTFOUND`), not a library's own. */
const isSystemCode = (code: unknown): code is string => typeof code === 'string' && /^E[A-Z]+$/.test(code);
