import assert from 'node:assert/strict';
import os from 'node:os';
import { createConsoleApp } from '../../src/console/app';
import { BulkTasks } from '../../src/console/bulk-tasks';
import { loadConsoleConfig } from '../../src/console/console-config';
import { startConsole } from '../../src/console/server';
import { hashPassword } from '../../src/console/users';
import { ConfigError } from '../../src/shared/errors';
import { newPage, startConsoleTestEnv, stopConsoleTestEnv } from '../helpers/console';
import { uniqueId } from '../helpers/env';

const password = 'correct horse battery staple';

/** Signs in through the form and returns the session cookie and the CSRF token the page carries. */
async function signIn(base: string, name: string): Promise<{ cookie: string; csrf: string }> {
  const form = new URLSearchParams({ name, password, next: '/' });
  const res = await fetch(`${base}/login`, { method: 'POST', body: form, redirect: 'manual', headers: { origin: base } });
  assert.equal(res.status, 303, `${name} signs in`);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const page = await (await fetch(`${base}/`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  assert.ok(csrf, 'the page carries a CSRF token');
  return { cookie, csrf };
}

describe('console: nobody let in who should not be (real dev server)', function () {
  this.timeout(180_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  before(async () => {
    const passwordHash = await hashPassword(password);
    t = await startConsoleTestEnv({
      reportsDir: os.tmpdir(),
      accounts: [
        { name: 'olga', role: 'operator', passwordHash },
        { name: 'vic', role: 'viewer', passwordHash },
        { name: 'tess', role: 'viewer', passwordHash },
      ],
    });
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  it('refuses to listen beyond loopback without accounts, naming the setting', async () => {
    assert.throws(() => loadConsoleConfig({ host: '0.0.0.0', accounts: [] }), (err: unknown) => err instanceof ConfigError && /CONSOLE_USERS_FILE/.test(err.message));
    await assert.rejects(startConsole({ jobs: t.jobs, host: '0.0.0.0', port: 0, accounts: [] }), /CONSOLE_USERS_FILE.*beyond this machine/);
  });

  it('sends a strict CSP and an HttpOnly, SameSite=Strict session cookie; a wrong password gets nothing', async () => {
    const base = t.console.url;
    const login = await fetch(`${base}/login`);
    const csp = login.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'"]) assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`);
    const wrong = await fetch(`${base}/login`, { method: 'POST', body: new URLSearchParams({ name: 'olga', password: 'not it at all' }), redirect: 'manual', headers: { origin: base } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    const right = await fetch(`${base}/login`, { method: 'POST', body: new URLSearchParams({ name: 'olga', password }), redirect: 'manual', headers: { origin: base } });
    const cookie = right.headers.get('set-cookie') ?? '';
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    assert.equal((await fetch(`${base}/`, { redirect: 'manual' })).status, 302, 'a page without a session goes to the sign-in page');
    const tampered = cookie.split(';')[0]!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    assert.equal((await fetch(`${base}/`, { redirect: 'manual', headers: { cookie: tampered } })).status, 302, 'a tampered cookie is no session');
  });

  it('refuses every state-changing route to the unauthenticated (401), a viewer (403), a forged cross-site request and one without the CSRF token (403)', async () => {
    const base = t.console.url;
    const app = createConsoleApp({ jobs: t.jobs, config: loadConsoleConfig({ accounts: [] }), tasks: new BulkTasks() });
    const mutating = [...new Set(app.routes.filter((r) => r.method !== 'GET' && r.method !== 'ALL' && r.path !== '/login').map((r) => `${r.method} ${r.path}`))];
    assert.ok(mutating.length >= 1, `routes: ${mutating.join(', ')}`);
    // A real job and entry for the routes' parameters, so that a request let through would act.
    const { id } = await t.jobs.enqueue('noop', {}, { id: uniqueId('sec'), delay: '1h' });
    const fill = (p: string) => p.replace(/:[a-zA-Z]+/g, encodeURIComponent(id));
    const operator = await signIn(base, 'olga');
    const viewer = await signIn(base, 'vic');
    const refusals: string[] = [];
    for (const route of mutating) {
      const [method, path] = route.split(' ') as [string, string];
      if (path === '/logout') continue;
      const url = `${base}${fill(path)}`;
      const body = (csrf?: string) => new URLSearchParams({ reason: 'security test', rate: '1', ...(csrf ? { _csrf: csrf } : {}) });
      const cases: [string, RequestInit, number][] = [
        ['unauthenticated', { method, body: body() }, 401],
        ['viewer', { method, body: body(viewer.csrf), headers: { cookie: viewer.cookie, origin: base } }, 403],
        ['no CSRF token', { method, body: body(), headers: { cookie: operator.cookie, origin: base } }, 403],
        ['wrong CSRF token', { method, body: body('x'.repeat(32)), headers: { cookie: operator.cookie, origin: base } }, 403],
        ['cross-site', { method, body: body(operator.csrf), headers: { cookie: operator.cookie, origin: 'https://evil.example' } }, 403],
        ['cross-site (fetch metadata)', { method, body: body(operator.csrf), headers: { cookie: operator.cookie, 'sec-fetch-site': 'cross-site' } }, 403],
        ['no Origin, a foreign Referer', { method, body: body(operator.csrf), headers: { cookie: operator.cookie, referer: 'https://evil.example/' } }, 403],
      ];
      for (const [who, init, expected] of cases) {
        const res = await fetch(url, { ...init, redirect: 'manual' });
        if (res.status !== expected) refusals.push(`${route} as ${who}: ${res.status}, expected ${expected}`);
      }
    }
    assert.deepEqual(refusals, []);
    const record = await t.jobs.get(id);
    assert.equal(record.status, 'scheduled', 'the job was neither cancelled nor touched');
    await t.jobs.cancel(id);
  });

  it('signing out ends the session, even for a cookie someone kept; an account whose role or password changed is signed out', async () => {
    const base = t.console.url;
    const kept = await signIn(base, 'olga');
    const out = await fetch(`${base}/logout`, { method: 'POST', body: new URLSearchParams({ _csrf: kept.csrf }), redirect: 'manual', headers: { cookie: kept.cookie, origin: base } });
    assert.equal(out.status, 303);
    assert.equal((await fetch(`${base}/`, { headers: { cookie: kept.cookie }, redirect: 'manual' })).status, 302, 'the kept cookie opens no page');
    const { id } = await t.jobs.enqueue('noop', {}, { id: uniqueId('sec-out'), delay: '1h' });
    const act = await fetch(`${base}/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST', body: new URLSearchParams({ _csrf: kept.csrf }), redirect: 'manual', headers: { cookie: kept.cookie, origin: base } });
    assert.equal(act.status, 401);
    assert.match(await act.text(), /Your session has ended/);
    assert.equal((await t.jobs.get(id)).status, 'scheduled', 'nothing was done');
    await t.jobs.cancel(id);

    const secret = 's'.repeat(40);
    const hash = await hashPassword(password);
    const before = await startConsole({ jobs: t.jobs, port: 0, sessionSecret: secret, accounts: [{ name: 'ray', role: 'operator', passwordHash: hash }] });
    const demoted = await startConsole({ jobs: t.jobs, port: 0, sessionSecret: secret, accounts: [{ name: 'ray', role: 'viewer', passwordHash: hash }] });
    const rotated = await startConsole({ jobs: t.jobs, port: 0, sessionSecret: secret, accounts: [{ name: 'ray', role: 'operator', passwordHash: await hashPassword(password) }] });
    try {
      const ray = await signIn(before.url, 'ray');
      for (const after of [demoted, rotated]) assert.equal((await fetch(`${after.url}/`, { headers: { cookie: ray.cookie }, redirect: 'manual' })).status, 302);
      assert.equal((await fetch(`${before.url}/`, { headers: { cookie: ray.cookie }, redirect: 'manual' })).status, 200, 'the control: the same cookie on an unchanged console');
    } finally {
      await Promise.all([before.close(), demoted.close(), rotated.close()]);
    }
  });

  it('makes an account wait after 5 wrong passwords in a row, even for the right one', async () => {
    const attempt = (pw: string) => fetch(`${t.console.url}/login`, { method: 'POST', body: new URLSearchParams({ name: 'tess', password: pw }), redirect: 'manual', headers: { origin: t.console.url } });
    for (let i = 0; i < 5; i += 1) assert.equal((await attempt(`wrong password ${i}`)).status, 401);
    const locked = await attempt(password);
    assert.equal(locked.status, 429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 240 && retryAfter <= 300, `Retry-After in seconds: ${locked.headers.get('retry-after')}`);
    const page = await locked.text();
    assert.match(page, /too many failed sign-ins as tess: try again in 5 minute/);
    assert.match(page, /<h1>Too many attempts<\/h1>/, 'a page of the console, not bare text');
    assert.match(page, /<a href="\/login">Back to sign-in<\/a>/, 'with a way back');
    assert.match(locked.headers.get('content-type') ?? '', /text\/html/);
  });

  it('refuses as a page of its own with a way back (403, 401), and as plain text to htmx', async () => {
    const base = t.console.url;
    const viewer = await signIn(base, 'vic');
    const { id } = await t.jobs.enqueue('noop', {}, { id: uniqueId('refusal'), delay: '1h' });
    const cancel = (headers: Record<string, string>) =>
      fetch(`${base}/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST', body: new URLSearchParams({ _csrf: viewer.csrf }), redirect: 'manual', headers: { cookie: viewer.cookie, origin: base, ...headers } });
    const asPage = await cancel({});
    assert.equal(asPage.status, 403);
    const page = await asPage.text();
    assert.match(page, /<h1>Not allowed<\/h1>/);
    assert.match(page, /vic is a viewer: this needs an operator/);
    assert.match(page, /<a href="\/">Back to the overview<\/a>/);
    const patchCheck = await fetch(`${base}/dead-letters/preview?type=noop&patch=${encodeURIComponent('{"a":1}')}`, { headers: { cookie: viewer.cookie } });
    assert.equal(patchCheck.status, 403, 'checking a patch (a patched payload) is an operator\'s, as the patch editor is');
    assert.match(await patchCheck.text(), /vic is a viewer: checking a patch needs an operator/);
    const toHtmx = await cancel({ 'hx-request': 'true' });
    assert.equal(toHtmx.status, 403);
    assert.equal(await toHtmx.text(), 'vic is a viewer: this needs an operator');
    const sso = await startConsole({ jobs: t.jobs, port: 0, authHeader: 'X-Forwarded-User', accounts: [{ name: 'olga@corp', role: 'operator' }] });
    try {
      const unnamed = await fetch(`${sso.url}/`, { redirect: 'manual' });
      assert.equal(unnamed.status, 401);
      const text = await unnamed.text();
      assert.match(text, /<h1>Sign in first<\/h1>/);
      assert.match(text, /no x-forwarded-user header: sign in through the company&#39;s sign-on proxy/);
    } finally {
      await sso.close();
    }
    await t.jobs.cancel(id);
  });

  it('a page whose session ended says so, offers sign-in and stops saying it refreshes', async () => {
    const { context, page } = await newPage(t.browser);
    try {
      await page.goto(`${t.console.url}/login?next=${encodeURIComponent('/tasks')}`);
      await page.getByLabel('Name').fill('olga');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('refreshes every 2 s').waitFor();
      await context.clearCookies(); // as when the session expires or the console restarts with a new secret
      const ended = page.getByRole('alert').filter({ hasText: 'Your session has ended: this page no longer refreshes.' });
      await ended.waitFor({ timeout: 15_000 });
      assert.equal(await ended.getByRole('link', { name: 'Sign in again' }).getAttribute('href'), `/login?next=${encodeURIComponent('/tasks')}`);
      assert.equal(await page.getByText('refreshes every 2 s').count(), 0, 'it no longer claims to refresh');
    } finally {
      await context.close();
    }
  });

  it('behind a single sign-on proxy: believes CONSOLE_AUTH_HEADER only with the proxy\'s secret, and only for an account of the console', async () => {
    const secret = 'p'.repeat(40);
    const sso = await startConsole({ jobs: t.jobs, port: 0, authHeader: 'X-Forwarded-User', proxySecret: secret, accounts: [{ name: 'olga@corp', role: 'operator' }, { name: 'vic@corp', role: 'viewer' }] });
    try {
      const get = (headers: Record<string, string>) => fetch(`${sso.url}/`, { headers, redirect: 'manual' });
      assert.equal((await get({ 'x-forwarded-user': 'olga@corp' })).status, 401, 'without the proxy secret');
      assert.equal((await get({ 'x-console-proxy-secret': secret })).status, 401, 'without a user');
      assert.equal((await get({ 'x-console-proxy-secret': secret, 'x-forwarded-user': 'mallory' })).status, 401, 'an unknown user');
      const ok = await get({ 'x-console-proxy-secret': secret, 'x-forwarded-user': 'vic@corp' });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /vic@corp \(viewer\)/);
      const login = await fetch(`${sso.url}/login`, { method: 'POST', body: new URLSearchParams({ name: 'olga@corp', password: 'anything at all' }), redirect: 'manual', headers: { origin: sso.url } });
      assert.equal(login.status, 401, 'an account without a password hash cannot sign in with a password');
      assert.throws(() => loadConsoleConfig({ host: '0.0.0.0', authHeader: 'X-Forwarded-User', accounts: [{ name: 'a', role: 'viewer' }] }), /CONSOLE_PROXY_SECRET/);
    } finally {
      await sso.close();
    }
  });

  it('a viewer signs in through the form and sees the overview as a viewer', async () => {
    const { context, page } = await newPage(t.browser);
    try {
      await page.goto(`${t.console.url}/`);
      await page.getByLabel('Name').fill('vic');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.match((await page.locator('header .who').textContent()) ?? '', /vic \(viewer\)/);
    } finally {
      await context.close();
    }
  });
});
