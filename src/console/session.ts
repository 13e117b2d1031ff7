// Sessions in a signed cookie: the user, an expiry and the session's CSRF token, HMAC-signed with
// the console's secret. Nothing is stored on the server, so a restart with the same secret keeps
// people signed in and one with a new secret signs everyone out.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleUser } from './users';

/** The session cookie's name. */
export const sessionCookie = 'dj_console';

/** What a session cookie carries. */
export interface Session {
  user: ConsoleUser;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** The token every state-changing request of this session must carry. */
  csrf: string;
}

/** Signs and reads session cookies with one secret. */
export class SessionSigner {
  constructor(private readonly secret: Buffer) {}

  /** A new session for `user`, valid for `ttlMs`. */
  create(user: ConsoleUser, ttlMs: number, now = Date.now()): Session {
    return { user, exp: now + ttlMs, csrf: randomBytes(24).toString('base64url') };
  }

  /** The cookie value for a session. */
  seal(session: Session): string {
    const body = Buffer.from(JSON.stringify(session)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The session a cookie value carries, if it is signed by this secret and not expired. */
  open(value: string | undefined, now = Date.now()): Session | undefined {
    if (!value) return undefined;
    const [body, mac] = value.split('.');
    if (!body || !mac) return undefined;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const session = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Session;
      return typeof session.exp === 'number' && session.exp > now && typeof session.csrf === 'string' ? session : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}

/** Compares two CSRF tokens in constant time. */
export function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
