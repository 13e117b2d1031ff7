import assert from 'node:assert/strict';
import os from 'node:os';
import { hashPassword } from '../../src/console/users';
import { createAccount, seedDemoAccounts } from '../../src/jobs/database/seed';
import { waitFor } from '../helpers/dlq';
import { failPayments, signIn, startConsoleTestEnv, stopConsoleTestEnv } from '../helpers/console';

const operator = { name: 'olga', password: 'operator-password-1' };

describe('console: canary redrive and bulk tasks (real dev server, Chromium)', function () {
  this.timeout(240_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  before(async () => {
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), accounts: [{ name: operator.name, role: 'operator', passwordHash: await hashPassword(operator.password) }] });
    await seedDemoAccounts(t.testDb.db);
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  const url = (path: string) => `${t.console.url}${path}`;

  it('redrives one first (canary), shows it complete, then the remaining 5 at 5/s as a task that finishes with the page closed', async () => {
    const failed = await failPayments(t, 6, { toAccount: 'dave', amount: 150 });
    const { fingerprint } = failed[0]!;
    assert.ok(failed.every((e) => e.fingerprint === fingerprint));
    // Fix the cause: the to-account now exists.
    await createAccount(t.testDb.db, { id: 'dave', currency: 'EUR' });
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password);
    await page.goto(url(`/dead-letters/process-payment/${fingerprint}`));
    // The group's canary goes through the preview, as every redrive does.
    await page.getByRole('link', { name: 'Redrive one first (canary)' }).click();
    await page.waitForURL(/\/dead-letters\/preview\?/);
    await page.getByRole('button', { name: 'Redrive one first (canary)' }).click();
    // The status region refreshes itself until the job ends; one notice at a time (the outcome).
    await page.locator('.canary-status[data-status="completed"]').waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.locator('.notice').allInnerTexts(), ['The canary completed.']);
    assert.equal(await page.locator('.remaining').textContent(), '5');
    await page.getByLabel('Reason for the rest (optional)').fill('the rest, after the canary');
    await page.getByLabel('Redrive the remaining 5 at').fill('5');
    await page.getByRole('button', { name: 'Redrive the remaining 5' }).click();
    await page.getByRole('status').filter({ hasText: /^Started: redrive 5 process-payment jobs of group/ }).waitFor();
    await context.close();

    const ids = failed.map((e) => e.id);
    const entries = await waitFor(() => Promise.all(ids.map((id) => t.jobs.deadLetters.show(id))), (all) => all.every((e) => e.status === 'redriven'), 60_000);
    assert.deepEqual(entries.map((e) => e.status), ids.map(() => 'redriven'), 'the task went on with its page closed');
    for (const e of entries) assert.equal(e.audit.at(-1)?.by, operator.name);
    assert.deepEqual(entries.slice(1).map((e) => e.audit.at(-1)?.detail), ids.slice(1).map(() => 'the rest, after the canary'), 'the rest carry their own reason');
    for (const id of ids) assert.equal(((await t.jobs.result(id)) as { toAccount: string }).toAccount, 'dave');
    const starts = (await Promise.all(ids.slice(1).map(async (id) => (await t.env.client.workflow.getHandle(id).describe()).startTime.getTime()))).sort((a, b) => a - b);
    assert.ok(starts.at(-1)! - starts[0]! >= 600, `5 restarts at 5/s span at least 0.8 s, less the jitter of a start: ${starts.at(-1)! - starts[0]!} ms`);

    const again = await signIn(t.browser, t.console.url, operator.name, operator.password);
    try {
      await again.page.goto(url('/tasks'));
      const row = again.page.locator('table.tasks tbody tr').first();
      await row.locator('td.status').filter({ hasText: 'done' }).waitFor();
      assert.deepEqual([await row.locator('td.done').textContent(), await row.locator('td.failed').textContent()], ['5', '0']);
      // Times in the console's one format, the title's included (UTC, 24-hour; no ISO 'T').
      assert.match((await again.page.locator('p.meta time').textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      assert.doesNotMatch((await row.locator('th').textContent()) ?? '', /\d{4}-\d\d-\d\dT/);
      await again.page.screenshot({ path: 'test-artifacts/console-tasks.png', fullPage: true });
    } finally {
      await again.context.close();
    }
  });

  it('checks the rate on the server, naming it; an operator cancels a running discard task and what it had not reached stays dead-lettered', async () => {
    const failed = await failPayments(t, 4, { toAccount: 'bob', amount: 10_000_000_00 });
    const { fingerprint } = failed[0]!;
    const ids = failed.map((e) => e.id);
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password);
    try {
      page.on('dialog', (d) => void d.accept());
      await page.goto(url(`/dead-letters/preview?type=process-payment&fingerprint=${fingerprint}`));
      await page.getByLabel('Rate (per second, at most 100)').fill('1000');
      await page.getByRole('button', { name: /^Redrive all/ }).click();
      await page.getByRole('alert').filter({ hasText: 'rate: must be a number of operations per second, more than 0 and at most 100, got "1000"' }).waitFor();

      await page.goto(url(`/dead-letters/process-payment/${fingerprint}`));
      await page.getByLabel('Reason (required)').fill('customer cancelled');
      await page.getByLabel('Rate (per second)').fill('0');
      await page.getByRole('button', { name: /^Discard all/ }).click();
      await page.getByRole('alert').filter({ hasText: 'rate: must be a number of operations per second, more than 0 and at most 100, got "0"' }).waitFor();
      const untouched = await Promise.all(ids.map((id) => t.jobs.deadLetters.show(id)));
      assert.deepEqual(untouched.map((e) => e.status), ids.map(() => 'dead-lettered'), 'nothing changed');

      // One discard every 5 s: the cancel lands in the pause after the first.
      await page.getByLabel('Reason (required)').fill('customer cancelled');
      await page.getByLabel('Rate (per second)').fill('0.2');
      await page.getByRole('button', { name: /^Discard all/ }).click();
      await page.getByRole('status').filter({ hasText: /^Started: discard/ }).waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('status').filter({ hasText: /^Cancelling discard/ }).waitFor();
      const row = page.locator('table.tasks tbody tr').first();
      await row.locator('td.status').filter({ hasText: 'cancelled' }).waitFor({ timeout: 15_000 });
      const after = await Promise.all(ids.map((id) => t.jobs.deadLetters.show(id)));
      const discarded = after.filter((e) => e.status === 'discarded');
      assert.ok(discarded.length >= 1 && discarded.length < ids.length, `discarded ${discarded.length} of ${ids.length}`);
      assert.equal(Number(await row.locator('td.done').textContent()), discarded.length);
      for (const e of discarded) assert.deepEqual([e.audit.at(-1)?.by, e.audit.at(-1)?.detail], [operator.name, 'customer cancelled']);
      assert.equal(after.filter((e) => e.status === 'dead-lettered').length, ids.length - discarded.length);
    } finally {
      await context.close();
    }
  });
});
