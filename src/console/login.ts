// Signing in and out. A failed sign-in says only that the name or password is wrong, after the
// same scrypt work either way.
import { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { writeSession } from './auth';
import { originRefusal } from './hosts';
import { refusal } from './refusal-page';
import type { ConsoleConfig } from './console-config';
import type { ConsoleEnv } from './context';
import { sessionCookie, type SessionSigner } from './session';
import { userOf, verifyPassword } from './users';

const decoyHash = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function loginPage(next: string, failed: boolean) {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · durable-jobs</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/console.css"></head>
<body><main id="main" class="login"><h1>Sign in to durable-jobs</h1>
${failed ? html`<p class="notice error" role="alert">Wrong name or password.</p>` : ''}
<form method="post" action="/login">
<input type="hidden" name="next" value="${next}">
<label for="name">Name</label><input id="name" name="name" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form></main></body></html>`;
}

/** Failed sign-ins an account may have in {@link failureWindowMs} before it must wait {@link lockoutMs}. */
const maxFailures = 5;
const failureWindowMs = 15 * 60_000;
const lockoutMs = 5 * 60_000;

/** Failed sign-ins per account name, in this process. */
class SignInThrottle {
  private readonly failures = new Map<string, { count: number; since: number; until?: number }>();

  /** Ms until `name` may try again, or 0. */
  wait(name: string, now = Date.now()): number {
    const f = this.failures.get(name);
    return f?.until !== undefined && f.until > now ? f.until - now : 0;
  }

  fail(name: string, now = Date.now()): void {
    const f = this.failures.get(name);
    const next = f && now - f.since < failureWindowMs ? { ...f, count: f.count + 1 } : { count: 1, since: now };
    this.failures.set(name, next.count >= maxFailures ? { count: 0, since: now, until: now + lockoutMs } : next);
    if (this.failures.size > 10_000) this.failures.delete(this.failures.keys().next().value!);
  }

  succeed(name: string): void {
    this.failures.delete(name);
  }
}

/** Only a path on this console: a `next` that leads elsewhere goes to the overview. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/';
}

/** The sign-in and sign-out routes. */
export function loginRoutes(config: ConsoleConfig, signer: SessionSigner): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const throttle = new SignInThrottle();
  app.get('/login', (c) => c.html(loginPage(safeNext(c.req.query('next')), false)));
  app.post('/login', async (c) => {
    // No session yet, so no CSRF token: a sign-in posted from another site is refused by its origin.
    const refused = originRefusal(c, config);
    if (refused) return refusal(c, 403, `this sign-in is not accepted: ${refused}`);
    const form = await c.req.parseBody();
    const next = safeNext(form.next);
    const name = typeof form.name === 'string' ? form.name : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const wait = throttle.wait(name);
    if (wait > 0) return refusal(c, 429, `too many failed sign-ins as ${name}: try again in ${Math.ceil(wait / 60_000)} minute(s)`, { retryAfterSeconds: wait / 1000 });
    const account = config.accounts.find((a) => a.name === name && a.passwordHash !== undefined);
    const ok = await verifyPassword(password, account?.passwordHash ?? decoyHash);
    if (!account || !ok) {
      throttle.fail(name);
      return c.html(loginPage(next, true), 401);
    }
    throttle.succeed(name);
    writeSession(c, config, signer, signer.create(userOf(account), config.sessionTtlMs, account.passwordHash));
    return c.redirect(next, 303);
  });
  app.post('/logout', (c) => {
    const session = c.get('session');
    if (session) signer.revoke(session);
    deleteCookie(c, sessionCookie, { path: '/' });
    return c.redirect('/login', 303);
  });
  return app;
}
