import assert from 'node:assert/strict';
import os from 'node:os';
import type { Page } from 'playwright-core';
import { hashPassword } from '../../src/console/users';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { waitFor } from '../helpers/dlq';
import { failPayments, signIn, startConsoleTestEnv, stopConsoleTestEnv, watchPage } from '../helpers/console';

const operator = { name: 'olga', password: 'operator-password-1' };

// The on-call story of the console, end to end on a real dev server in a real browser. Each page
// it passes through is kept as test-artifacts/triage-<n>-<page>.png (named in the README).
describe('console: the triage story, from a spike of failures to every job put back (real dev server, Chromium)', function () {
  this.timeout(300_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  before(async () => {
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), accounts: [{ name: operator.name, role: 'operator', passwordHash: await hashPassword(operator.password) }] });
    await seedDemoAccounts(t.testDb.db);
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  it('30 payments fail for two reasons; the operator finds the larger group, previews, patches (a bad field first), canaries one and redrives the rest at 5/s; all complete, the audit names each action and the operator', async () => {
    const unknown = await failPayments(t, 20, { toAccount: 'nobody-triage' });
    const broke = await failPayments(t, 10, { toAccount: 'bob', amount: 10_000_000_00 });
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password, '/');
    const seen = watchPage(page);
    const shot = (name: string) => page.screenshot({ path: `test-artifacts/triage-${name}.png`, fullPage: true });
    try {
      // 1. The overview shows the failures (its table refreshes itself until visibility catches up).
      const payments = page.locator('#overview-live tr', { has: page.getByRole('rowheader', { name: 'process-payment' }) });
      await payments.filter({ hasText: /30\s*$/ }).waitFor({ timeout: 30_000 });
      assert.match((await payments.locator('td').nth(4).textContent()) ?? '', /^30$/, 'failed in the last hour');
      await page.locator('[data-chart="throughput"] canvas').waitFor();
      await shot('1-overview');

      // 2. From the DLQ count to the groups: two reasons, the larger first.
      await payments.getByRole('link', { name: '30' }).last().click();
      await page.getByRole('heading', { name: /Dead letters/ }).waitFor();
      const groups = page.locator('table.groups tbody tr');
      assert.deepEqual(await groups.locator('td.count').allTextContents(), ['20', '10']);
      await shot('2-groups');
      await groups.first().getByRole('link').first().click();

      // 3. The group's entries, then the preview of a redrive: how many, which IDs, and the steps.
      await page.locator('table').filter({ hasText: unknown[0]!.id }).first().waitFor();
      await shot('3-group');
      await page.getByRole('link', { name: 'Preview a redrive of all 20' }).click();
      await page.locator('p.summary strong').filter({ hasText: '20' }).waitFor();
      const ids = await page.locator('ul.ids li').allTextContents();
      assert.deepEqual(new Set(ids), new Set(unknown.map((e) => e.id)));
      const plan = page.locator('table.plan').first();
      assert.deepEqual(await plan.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-step'), r.getAttribute('data-fate')])), [
        ['reserve', 'undone'],
        ['capture', 'not-done'],
        ['release', 'not-done'],
      ]);
      await shot('4-preview');

      // 4. A patch with a schema error: shown at its field, nothing restarts.
      await checkPatch(page, '{"toAccount": 42}');
      assert.match((await page.locator('table.fields tr[data-path="payload.toAccount"] .field-error').textContent()) ?? '', /expected string/);
      await shot('5-patch-refused');
      const untouched = await Promise.all(unknown.map((e) => t.jobs.deadLetters.show(e.id)));
      assert.deepEqual(untouched.map((e) => e.status), unknown.map(() => 'dead-lettered'), 'nothing restarted');

      // 5. The fixed patch, a canary with it, its outcome, then the rest at 5/s.
      await checkPatch(page, '{"toAccount": "bob"}');
      await page.getByRole('status').filter({ hasText: 'The patch is valid for all 20 job(s).' }).waitFor();
      await page.getByLabel('Reason (for the audit trail)').first().fill('the provider renamed the account');
      await page.getByRole('button', { name: 'Redrive one first (canary)' }).click();
      await page.locator('.canary-status[data-status="completed"]').waitFor({ timeout: 60_000 });
      await shot('6-canary');
      await page.getByLabel(/Redrive the remaining 19 at/).fill('5');
      await page.getByRole('button', { name: 'Redrive the remaining 19' }).click();
      await page.getByRole('status').filter({ hasText: /^Started: redrive 19/ }).waitFor();
      const task = page.locator('table.tasks tbody tr').first();
      await task.locator('td.status').filter({ hasText: 'done' }).waitFor({ timeout: 90_000 });
      assert.deepEqual([await task.locator('td.done').textContent(), await task.locator('td.failed').textContent()], ['19', '0']);
      await shot('7-task-done');

      // 6. Every job of the group completed, paid to bob; the other group is untouched.
      for (const e of unknown) assert.equal(((await t.jobs.result(e.id)) as { toAccount: string }).toAccount, 'bob');
      const entries = await waitFor(() => Promise.all(unknown.map((e) => t.jobs.deadLetters.show(e.id))), (all) => all.every((e) => e.status === 'redriven'), 30_000);
      for (const e of entries) {
        const redrive = e.audit.filter((a) => a.action === 'redrive');
        assert.equal(redrive.length, 1, `${e.id} redriven once`);
        assert.deepEqual({ by: redrive[0]!.by, patch: redrive[0]!.patch }, { by: operator.name, patch: { toAccount: 'bob' } });
      }
      assert.deepEqual((await Promise.all(broke.map((e) => t.jobs.deadLetters.show(e.id)))).map((e) => e.status), broke.map(() => 'dead-lettered'));

      // 7. One entry's audit trail in the browser: dead-lettered, then redriven by the operator.
      await page.goto(`${t.console.url}/dead-letters/entry/${encodeURIComponent(unknown[5]!.id)}`);
      const audit = page.locator('table').filter({ hasText: 'dead-lettered' }).last();
      await audit.filter({ hasText: 'redrive' }).filter({ hasText: operator.name }).waitFor();
      await shot('8-entry-audit');
      assert.deepEqual(seen.errors, []);
      assert.deepEqual(seen.dialogs, []);
    } finally {
      await context.close();
    }
  });
});

async function checkPatch(page: Page, patch: string): Promise<void> {
  await page.locator('#patch').fill(patch);
  await page.getByRole('button', { name: 'Check the patch' }).click();
  await page.waitForLoadState();
}
