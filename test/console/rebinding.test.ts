// DNS rebinding against the console: a web page under a foreign name that resolves to this machine
// (Chromium's --host-resolver-rules does what the attacker's DNS would) runs its script against the
// console as its own origin. It must read nothing and change nothing, on the default loopback
// console (no accounts: everyone is the operator `local`) and on a single-sign-on console.
import assert from 'node:assert/strict';
import os from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startConsole, type RunningConsole } from '../../src/console/server';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { chromiumPath } from '../helpers/browser';
import { failPayments, startConsoleTestEnv, stopConsoleTestEnv } from '../helpers/console';

const foreign = 'rebound.attacker.test';
const allowed = 'console.corp.test';

/** What the attacker's script gets from the console under the name it is served by. */
async function attack(page: Page, entryId: string, headers: Record<string, string>): Promise<{ pageText: string; entry: number; entryText: string; discard: number; discardText: string }> {
  const pageText = await page.content();
  const got = await page.evaluate(
    async ({ entryId, headers }) => {
      const read = await fetch(`/dead-letters/entry/${encodeURIComponent(entryId)}`, { headers });
      const readText = await read.text();
      const token = /name="_csrf" value="([^"]+)"/.exec(readText)?.[1] ?? 'guessed';
      const body = new URLSearchParams({ type: 'process-payment', id: entryId, reason: 'rebinding', _csrf: token });
      const discard = await fetch('/dead-letters/discard', { method: 'POST', body, headers: { ...headers, 'x-csrf-token': token } });
      return { entry: read.status, entryText: readText, discard: discard.status, discardText: await discard.text() };
    },
    { entryId, headers },
  );
  return { pageText, ...got };
}

describe('console: DNS rebinding (real dev server, Chromium with a foreign name resolved to the console)', function () {
  this.timeout(240_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  let rebinding: Browser;
  before(async () => {
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), allowedHosts: [allowed] });
    await seedDemoAccounts(t.testDb.db);
    rebinding = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', `--host-resolver-rules=MAP ${foreign} 127.0.0.1, MAP ${allowed} 127.0.0.1`] });
  });
  after(async () => {
    await rebinding?.close();
    await stopConsoleTestEnv(t ?? {});
  });

  const under = (console: RunningConsole, name: string) => console.url.replace('127.0.0.1', name);

  async function assertRebindingFails(console: RunningConsole, headers: Record<string, string>): Promise<void> {
    const [entry] = await failPayments(t, 1, { toAccount: 'nobody-at-all' });
    const page = await (await rebinding.newContext({ extraHTTPHeaders: headers })).newPage();
    try {
      const response = await page.goto(`${under(console, foreign)}/dead-letters/entry/${encodeURIComponent(entry!.id)}`);
      assert.equal(response?.status(), 421, 'the page under the foreign name is refused');
      const got = await attack(page, entry!.id, headers);
      assert.equal(got.entry, 421, 'its script reads no entry');
      assert.equal(got.discard, 421, 'its discard is refused');
      for (const text of [got.pageText, got.entryText, got.discardText]) {
        assert.doesNotMatch(text, /nobody-at-all|_csrf|paymentId/, 'no payload, entry or token reaches the page');
        assert.match(text, new RegExp(`does not answer to the host name '${foreign.replace(/\./g, '\\.')}:\\d+'`));
      }
      const after = await t.jobs.deadLetters.show(entry!.id);
      assert.deepEqual([after.status, after.audit.length], ['dead-lettered', 1], 'nothing changed');

      // The control: a page under a name the console serves is the console itself, and its script may act.
      const own = await (await rebinding.newContext({ extraHTTPHeaders: headers })).newPage();
      const shown = await own.goto(`${under(console, allowed)}/dead-letters/entry/${encodeURIComponent(entry!.id)}`);
      assert.equal(shown?.status(), 200, `a name in CONSOLE_ALLOWED_HOSTS (${allowed}) is served`);
      const acted = await attack(own, entry!.id, headers);
      assert.equal(acted.discard, 200, `the console's own page may discard: ${acted.discardText.slice(0, 200)}`);
      assert.equal((await t.jobs.deadLetters.show(entry!.id)).status, 'discarded');
      await own.context().close();
    } finally {
      await page.context().close();
    }
  }

  it('the default loopback console (no accounts) answers a page under a foreign name with nothing but a refusal', async () => {
    await assertRebindingFails(t.console, {});
  });

  it('a single-sign-on console on loopback does the same, whatever user header the page sets', async () => {
    const sso = await startConsole({ jobs: t.jobs, db: t.testDb.db, port: 0, authHeader: 'X-Forwarded-User', accounts: [{ name: 'olivia', role: 'operator' }], allowedHosts: [allowed] });
    try {
      await assertRebindingFails(sso, { 'x-forwarded-user': 'olivia' });
    } finally {
      await sso.close();
    }
  });

  it('refuses a state-changing request with a valid session and token but no Origin, even with a same-host Referer', async () => {
    const [entry] = await failPayments(t, 1, { toAccount: 'nobody-either' });
    const base = t.console.url;
    const home = await fetch(`${base}/dead-letters/entry/${encodeURIComponent(entry!.id)}`);
    const cookie = home.headers.get('set-cookie')!.split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(await home.text())?.[1];
    assert.ok(token, 'the console page carries a token');
    const body = new URLSearchParams({ type: 'process-payment', id: entry!.id, reason: 'no origin', _csrf: token });
    for (const referer of [`http://${foreign}/`, `${base}/`]) {
      const res = await fetch(`${base}/dead-letters/discard`, { method: 'POST', body, redirect: 'manual', headers: { cookie, referer } });
      assert.equal(res.status, 403, `no Origin, Referer ${referer}`);
      assert.match(await res.text(), /must say where it comes from \(an Origin header/);
    }
    const sameOrigin = await fetch(`${base}/dead-letters/discard`, { method: 'POST', body, redirect: 'manual', headers: { cookie, origin: `http://${foreign}:${new URL(base).port}` } });
    assert.equal(sameOrigin.status, 403, 'an Origin under a foreign name, on the console’s own Host');
    assert.equal((await t.jobs.deadLetters.show(entry!.id)).status, 'dead-lettered', 'nothing changed');
  });
});
