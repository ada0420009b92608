import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Opaque, tamper-evident cursors: the position (the last id served) is signed, so a client can
 * neither guess one nor build one from an offset.
 */
export class CursorCodec {
  readonly #secret: Buffer;

  constructor(secret: Buffer) {
    this.#secret = secret;
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#secret).update(payload).digest('base64url').slice(0, 22);
  }

  encode(afterId: string): string {
    const payload = Buffer.from(JSON.stringify({ v: 1, after: afterId })).toString('base64url');
    return `${payload}.${this.#sign(payload)}`;
  }

  /** The id the cursor points after, or `undefined` for a cursor this server did not issue. */
  decode(cursor: string): string | undefined {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (typeof parsed === 'object' && parsed !== null && 'after' in parsed && typeof parsed.after === 'string') {
        return parsed.after;
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
}
