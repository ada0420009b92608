import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The header the page sends its token in. A header, not a cookie: a browser attaches cookies to
 * another site's requests, but only our own page can set this header on a request to us.
 */
export const TOKEN_HEADER = 'x-sandbox-token';

/** Why a request is turned away, and the status it gets. */
export interface Refusal {
  status: 403 | 405;
  reason: string;
  /** For a 405: the one method the path takes. */
  allow?: 'GET' | 'POST';
}

/** Page actions that only read (GET); every other `/ui/` path changes state (POST). */
const READ_ONLY_PAGE_ACTIONS = new Set(['/ui/state']);
/** The bot's side (Web API, response_urls, uploads): it only ever POSTs. */
const BOT_PATHS = ['/api/', '/response/', '/upload/'];

const POST_ONLY: Refusal = { status: 405, reason: 'POST only', allow: 'POST' };

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Who may drive the sandbox: only its own page, in the owner's browser. Any other page open in
 * that browser can still send it requests (an `<img>`, a form, a `text/plain` fetch, or a DNS name
 * rebound to 127.0.0.1), acting as the promo editor; against a real `TICKETING_API_URL` that is a
 * real promo change. So:
 * - the `Host` must be the sandbox's own loopback address (defeats DNS rebinding, which is also
 *   what would let another site read the token out of the page);
 * - an `Origin`, when a browser sends one, must be the sandbox's own;
 * - what the page does is a POST carrying the per-start token and a same-origin `Origin`;
 * - GET never changes state.
 */
export class RequestGuard {
  readonly #hosts: ReadonlySet<string>;
  readonly #token: Buffer;

  constructor(port: number, token: string) {
    this.#hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    this.#token = digest(token);
  }

  /** Why this request is refused, or `undefined` when it may go on. */
  refusal(method: string | undefined, path: string, headers: IncomingHttpHeaders): Refusal | undefined {
    const host = headers.host?.toLowerCase();
    if (!host || !this.#hosts.has(host)) return { status: 403, reason: 'not the sandbox host' };
    const origin = headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return { status: 403, reason: 'cross-origin request' };
    if (BOT_PATHS.some((prefix) => path.startsWith(prefix))) {
      return method === 'POST' ? undefined : POST_ONLY;
    }
    if (!path.startsWith('/ui/')) return undefined;
    if (READ_ONLY_PAGE_ACTIONS.has(path)) {
      if (method !== 'GET') return { status: 405, reason: 'GET only', allow: 'GET' };
    } else {
      if (method !== 'POST') return POST_ONLY;
      // Browsers send Origin on every POST; a POST without one did not come from our page.
      if (origin === undefined) return { status: 403, reason: 'no Origin' };
    }
    return this.#holdsToken(headers[TOKEN_HEADER]) ? undefined : { status: 403, reason: 'missing or wrong token' };
  }

  /** Compared as digests of equal length, in constant time: the comparison says nothing of the token. */
  #holdsToken(given: string | string[] | undefined): boolean {
    return typeof given === 'string' && timingSafeEqual(digest(given), this.#token);
  }
}
