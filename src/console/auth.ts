// Who is asking, and may they: the session from its signed cookie (or, on a loopback console
// without accounts, the implicit operator `local`), CSRF checks on every state-changing request,
// and the role each action needs.
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { ConsoleConfig } from './console-config';
import type { ConsoleEnv } from './context';
import { originRefusal } from './hosts';
import { refusal } from './refusal-page';
import { passwordMark, sameToken, sessionCookie, SessionSigner, type Session } from './session';
import { userOf, type ConsoleRole, type ConsoleUser } from './users';

/** Paths anyone may reach: the sign-in page and the static assets. */
const publicPaths = [/^\/login$/, /^\/assets\//, /^\/healthz$/];

/** Sets the session cookie. */
export function writeSession(c: Context, config: ConsoleConfig, signer: SessionSigner, session: Session): void {
  setCookie(c, sessionCookie, signer.seal(session), { httpOnly: true, sameSite: 'Strict', secure: config.secureCookies, path: '/', maxAge: Math.floor(config.sessionTtlMs / 1000) });
}

/**
 * Resolves the request's session; a page without one goes to the sign-in page, any other request
 * gets 401. A request that changes something must come from a page of this console (its Origin
 * one of the names the console serves, src/console/hosts.ts) and carry the session's
 * CSRF token (the `X-CSRF-Token` header htmx sends, or a form's `_csrf` field): otherwise 403.
 */
export function authenticate(config: ConsoleConfig, signer: SessionSigner): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (publicPaths.some((p) => p.test(c.req.path))) return next();
    let session = current(signer.open(getCookie(c, sessionCookie)), config);
    const local = config.accounts.length === 0;
    if (config.authHeader) {
      const named = proxiedUser(c, config);
      if (typeof named === 'string') return refusal(c, 401, named);
      if (session?.user.name !== named.name || session.user.role !== named.role) {
        session = signer.create(named, config.sessionTtlMs);
        writeSession(c, config, signer, session);
      }
    } else if (!session && local) {
      session = signer.create({ name: 'local', role: 'operator', payloads: true }, config.sessionTtlMs);
      writeSession(c, config, signer, session);
    }
    if (!session) {
      if (c.req.header('hx-request') !== undefined) return c.text('sign in first', 401);
      if (c.req.method === 'GET') return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`);
      // A form from a page whose session has ended (signed out, expired): nothing was done.
      return c.html(html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signed out · durable-jobs</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/console.css"></head>
<body><main id="main" class="login"><h1>Your session has ended</h1><p class="notice error" role="alert">Nothing was done: sign in again, then repeat the action.</p><p><a href="/login">Sign in</a></p></main></body></html>`, 401);
    }
    c.set('session', session);
    c.set('signedIn', !local && !config.authHeader);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const refused = await crossSiteRefusal(c, config, session);
      if (refused) return refusal(c, 403, refused);
    }
    return next();
  };
}

/**
 * A session as the accounts stand now: ended if its account is gone, or its role, payload access
 * or password changed since it signed in.
 */
function current(session: Session | undefined, config: ConsoleConfig): Session | undefined {
  if (!session || config.accounts.length === 0) return session;
  const account = config.accounts.find((a) => a.name === session.user.name);
  if (!account) return undefined;
  const now = userOf(account);
  if (now.role !== session.user.role || now.payloads !== session.user.payloads) return undefined;
  if (!config.authHeader && session.pw !== passwordMark(account.passwordHash)) return undefined;
  return session;
}

/** The account the single sign-on proxy names, or why the request is refused. */
function proxiedUser(c: Context<ConsoleEnv>, config: ConsoleConfig): ConsoleUser | string {
  if (config.proxySecret !== undefined && !sameToken(c.req.header('x-console-proxy-secret'), config.proxySecret)) return 'this console is reached through its sign-on proxy only';
  const name = c.req.header(config.authHeader!);
  if (!name) return `no ${config.authHeader} header: sign in through the company's sign-on proxy`;
  const account = config.accounts.find((a) => a.name === name);
  if (!account) return `${name} is not an account of this console (CONSOLE_USERS_FILE)`;
  return userOf(account);
}

async function crossSiteRefusal(c: Context<ConsoleEnv>, config: ConsoleConfig, session: Session): Promise<string | undefined> {
  const refused = originRefusal(c, config);
  if (refused) return refused;
  let token = c.req.header('x-csrf-token');
  if (token === undefined) {
    const type = c.req.header('content-type') ?? '';
    if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
      const field = (await c.req.parseBody())._csrf;
      token = typeof field === 'string' ? field : undefined;
    }
  }
  return sameToken(token, session.csrf) ? undefined : 'the form is stale or forged (CSRF token missing or wrong): reload the page and try again';
}

/** Refuses a request whose user lacks `role` with 403. */
export function requireRole(role: ConsoleRole): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const { user } = c.get('session');
    if (role === 'operator' && user.role !== 'operator') return refusal(c, 403, `${user.name} is a viewer: this needs an operator`);
    return next();
  };
}
