import assert from 'node:assert/strict';
import os from 'node:os';
import type { Page } from 'playwright-core';
import { hashPassword } from '../../src/console/users';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { failPayments, signIn, startConsoleTestEnv, stopConsoleTestEnv } from '../helpers/console';

const operator = { name: 'olga', password: 'operator-password-1' };
const viewer = { name: 'vera', password: 'viewer-password-12' };

describe('console: dead letters (real dev server, Chromium)', function () {
  this.timeout(240_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  let accounts: { name: string; role: 'operator' | 'viewer'; passwordHash: string }[];
  before(async () => {
    accounts = [
      { name: operator.name, role: 'operator', passwordHash: await hashPassword(operator.password) },
      { name: viewer.name, role: 'viewer', passwordHash: await hashPassword(viewer.password) },
    ];
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), accounts });
    await seedDemoAccounts(t.testDb.db);
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  const operatorPage = () => signIn(t.browser, t.console.url, operator.name, operator.password);
  const url = (path: string) => `${t.console.url}${path}`;
  const entryUrl = (id: string) => url(`/dead-letters/entry/${encodeURIComponent(id)}`);
  const rowsOf = (page: Page, selector: string) => page.locator(selector).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id') ?? ''));

  it('lists failure groups with their counts, first and last seen, error and an example payload, filterable by type; a group pages its entries by cursor', async () => {
    const failed = await failPayments(t, 3, { toAccount: 'carol' });
    const fingerprint = failed[0]!.fingerprint;
    assert.ok(failed.every((e) => e.fingerprint === fingerprint), 'one failure group (currency mismatch)');
    const { context, page } = await operatorPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(url('/dead-letters'));
      const row = page.locator(`tr[data-fingerprint="${fingerprint}"]`);
      await row.waitFor();
      assert.equal(await row.locator('td.count').textContent(), '3');
      assert.match((await row.textContent()) ?? '', /process-payment:currency-mismatch/);
      assert.match((await row.textContent()) ?? '', /account "carol" is in USD, the payment in EUR/);
      await row.locator('summary').click();
      assert.match((await row.locator('pre').textContent()) ?? '', /"toAccount": "carol"/, 'the example payload, for an operator');
      await page.screenshot({ path: 'test-artifacts/console-dlq-groups.png', fullPage: true });
      await page.getByLabel('Job type').selectOption('send-email');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/type=send-email/);
      assert.equal(await page.locator(`tr[data-fingerprint="${fingerprint}"]`).count(), 0, 'filtered to another type');

      await page.goto(url(`/dead-letters/process-payment/${fingerprint}?limit=2`));
      assert.equal(await page.locator('dd.count').textContent(), '3');
      const first = await rowsOf(page, 'table.entries tbody tr');
      assert.equal(first.length, 2);
      await page.getByRole('link', { name: 'Next page →' }).click();
      await page.waitForURL(/cursor=/);
      const second = await rowsOf(page, 'table.entries tbody tr');
      assert.equal(second.length, 1);
      assert.deepEqual([...first, ...second], failed.map((e) => e.id), 'every entry once, oldest failure first');
      await page.goto(url(`/dead-letters/process-payment/${fingerprint}`));
      await page.screenshot({ path: 'test-artifacts/console-dlq-group.png', fullPage: true });

      // A selection within the group: those that failed in a time window (UTC when no zone is given).
      await page.getByLabel('Failed before (UTC)').fill(failed[1]!.lastFailedAt.replace(/Z$/, ''));
      await page.getByRole('button', { name: 'Preview a redrive of these' }).click();
      await page.waitForURL(/\/dead-letters\/preview\?/);
      assert.deepEqual(await page.locator('ul.ids li').allTextContents(), [failed[0]!.id, failed[1]!.id]);
      assert.equal(await page.locator('p.summary strong').textContent(), '2');
      const bad = await page.goto(url(`/dead-letters/preview?type=process-payment&fingerprint=${fingerprint}&failedAfter=yesterday`));
      assert.equal(bad?.status(), 400);
      assert.match((await bad?.text()) ?? '', /failedAfter: must be a time such as 2026-12-01T10:00:00Z/);
      assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), [], 'no script error or CSP violation');
    } finally {
      await context.close();
    }
  });

  it('discards one entry only with a reason; its page shows the audit trail with who and why, and the group count refreshes itself', async () => {
    // Three, so that the group outlives the two discards below.
    const [gone, stays] = await failPayments(t, 3, { toAccount: 'nobody-discard' });
    const { context, page } = await operatorPage();
    try {
      await page.goto(url(`/dead-letters/process-payment/${gone!.fingerprint}`));
      const count = Number(await page.locator('dd.count').textContent());
      await page.goto(entryUrl(gone!.id));
      page.on('dialog', (d) => void d.accept());
      // The browser would refuse an empty required field; the server's own check is what counts.
      await page.locator('#discard-reason').evaluate((el) => el.removeAttribute('required'));
      await page.getByRole('button', { name: 'Discard' }).click();
      await page.getByRole('alert').filter({ hasText: 'reason: is required' }).waitFor();
      assert.equal((await t.jobs.deadLetters.show(gone!.id)).status, 'dead-lettered', 'nothing changed');
      await page.locator('#discard-reason').fill('paid by hand');
      await page.getByRole('button', { name: 'Discard' }).click();
      await page.getByRole('status').filter({ hasText: `Discarded ${gone!.id}` }).waitFor();
      assert.equal(await page.locator('dd.status').textContent(), 'discarded');
      const last = page.locator('table.audit tbody tr').last();
      assert.match((await last.textContent()) ?? '', /discard/);
      assert.equal(await last.locator('td.by').textContent(), operator.name);
      assert.match((await last.textContent()) ?? '', /paid by hand/);
      assert.equal(await page.getByRole('link', { name: gone!.id }).getAttribute('href'), `/jobs/${encodeURIComponent(gone!.id)}`);
      await page.screenshot({ path: 'test-artifacts/console-dlq-entry.png', fullPage: true });
      const entry = await t.jobs.deadLetters.show(gone!.id);
      assert.deepEqual([entry.status, entry.audit.at(-1)?.by, entry.audit.at(-1)?.detail], ['discarded', operator.name, 'paid by hand']);
      assert.equal((await t.jobs.deadLetters.show(stays!.id)).status, 'dead-lettered');

      // The group page's region refreshes itself: a discard by someone else shows up without a reload.
      await page.goto(url(`/dead-letters/process-payment/${gone!.fingerprint}`));
      assert.equal(Number(await page.locator('dd.count').textContent()), count - 1);
      await t.jobs.deadLetters.discard(stays!.id, { reason: 'test', by: 'someone-else' });
      await page.locator('dd.count').filter({ hasText: String(count - 2) }).waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
    }
  });

  it('refuses a viewer (403) on every action, and any POST without the CSRF token; nothing changes', async () => {
    const [entry] = await failPayments(t, 1, { toAccount: 'nobody-refused' });
    const selection = { type: 'process-payment', fingerprint: entry!.fingerprint };
    const posts: [string, Record<string, string>][] = [
      ['/dead-letters/preview', { ...selection, patch: '{"toAccount":"bob"}' }],
      ['/dead-letters/redrive', { type: 'process-payment', id: entry!.id }],
      ['/dead-letters/redrive', { ...selection, rate: '5' }],
      ['/dead-letters/canary', selection],
      ['/dead-letters/discard', { type: 'process-payment', id: entry!.id, reason: 'no' }],
      ['/dead-letters/discard', { ...selection, reason: 'no', rate: '5' }],
      ['/tasks/any-task/cancel', {}],
    ];
    const v = await signIn(t.browser, t.console.url, viewer.name, viewer.password);
    const o = await operatorPage();
    try {
      for (const [path, form] of posts) {
        const refused = await v.context.request.post(url(path), { form: { ...form, _csrf: v.csrf }, maxRedirects: 0, headers: { origin: t.console.url } });
        assert.equal(refused.status(), 403, `viewer: POST ${path}`);
        assert.match(await refused.text(), /vera is a viewer: this needs an operator/);
        const forged = await o.context.request.post(url(path), { form, maxRedirects: 0, headers: { origin: t.console.url } });
        assert.equal(forged.status(), 403, `no CSRF token: POST ${path}`);
        assert.match(await forged.text(), /CSRF token missing or wrong/);
      }
      const after = await t.jobs.deadLetters.show(entry!.id);
      assert.deepEqual([after.status, after.audit.length], ['dead-lettered', 1], 'nothing changed');
      assert.equal((await t.env.client.workflow.getHandle(entry!.id).describe()).runId, entry!.lastRunId, 'no new run');

      // A viewer without the payload right reads the pages without payloads, and is offered no action.
      await v.page.goto(entryUrl(entry!.id));
      await v.page.getByText('Payloads are hidden from your account').waitFor();
      assert.equal(await v.page.locator('form.discard').count(), 0);
      await v.page.goto(url(`/dead-letters/preview?type=process-payment&id=${encodeURIComponent(entry!.id)}`));
      assert.equal(await v.page.locator('form').filter({ hasNot: v.page.getByRole('button', { name: 'Sign out' }) }).count(), 0);
      assert.equal(await v.page.locator('pre').count(), 0);
    } finally {
      await v.context.close();
      await o.context.close();
    }
  });
});
