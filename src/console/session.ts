// Sessions in a signed cookie: the user, an expiry and the session's CSRF token, HMAC-signed with
// the console's secret. A session names its account's password (a hash of its hash), so changing a
// password ends it, and each request checks it against the accounts as they are now. Signing out
// revokes the session in this process (kept until it would have expired); a restart with the same
// secret forgets revocations, so a signed-out cookie someone kept works again until it expires.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
  /** The session's own ID, for revoking it. */
  sid: string;
  /** A hash of the account's password hash when it signed in, if it signed in with one. */
  pw?: string;
}

/** What a session keeps of an account's password hash: enough to notice it changed, nothing to attack. */
export function passwordMark(passwordHash: string | undefined): string | undefined {
  return passwordHash === undefined ? undefined : createHash('sha256').update(passwordHash).digest('base64url').slice(0, 16);
}

/** Signs and reads session cookies with one secret. */
export class SessionSigner {
  private readonly revoked = new Map<string, number>();

  constructor(private readonly secret: Buffer) {}

  /** A new session for `user`, valid for `ttlMs`. */
  create(user: ConsoleUser, ttlMs: number, passwordHash?: string, now = Date.now()): Session {
    const session: Session = { user, exp: now + ttlMs, csrf: randomBytes(24).toString('base64url'), sid: randomBytes(12).toString('base64url') };
    const pw = passwordMark(passwordHash);
    return pw === undefined ? session : { ...session, pw };
  }

  /** Ends a session: its cookie opens nothing in this process from now on. */
  revoke(session: Session, now = Date.now()): void {
    for (const [sid, exp] of this.revoked) if (exp <= now) this.revoked.delete(sid);
    this.revoked.set(session.sid, session.exp);
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
      const valid = typeof session.exp === 'number' && session.exp > now && typeof session.csrf === 'string' && typeof session.sid === 'string';
      return valid && !this.revoked.has(session.sid) ? session : undefined;
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
