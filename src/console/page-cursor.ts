// The jobs list's `cursor` parameter: Temporal's own page token, opaque base64url, sealed with an
// HMAC over the token and the visibility query it belongs to. Temporal answers a token it did not
// give with an internal error that the client retries for many seconds; a sealed cursor is checked
// here first, so a forged, garbled or other filters' cursor is refused at once, naming the cursor.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Bytes of the HMAC kept in a cursor. */
const macBytes = 16;

/** Seals and opens page cursors with one secret (the console's session secret). */
export class PageCursors {
  constructor(private readonly secret: Buffer) {}

  /** The cursor of Temporal's `token` for the list of `query`. */
  seal(token: Uint8Array, query: string): string {
    return Buffer.concat([this.mac(token, query), token]).toString('base64url');
  }

  /** The token a cursor carries, if this console sealed it for `query`; otherwise `undefined`. */
  open(cursor: string, query: string): Uint8Array | undefined {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
    const bytes = Buffer.from(cursor, 'base64url');
    if (bytes.length <= macBytes) return undefined;
    const token = bytes.subarray(macBytes);
    return timingSafeEqual(bytes.subarray(0, macBytes), this.mac(token, query)) ? new Uint8Array(token) : undefined;
  }

  private mac(token: Uint8Array, query: string): Buffer {
    return createHmac('sha256', this.secret).update(query).update('\u0000').update(token).digest().subarray(0, macBytes);
  }
}
