import assert from 'node:assert/strict';
import os from 'node:os';
import { startConsole } from '../../src/console/server';
import { hashPassword } from '../../src/console/users';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import type { DeadLetterEntry } from '../../src/workflow-kit/dead-letter-entries';
import { failPayments, signIn, startConsoleTestEnv, stopConsoleTestEnv } from '../helpers/console';

const operator = { name: 'olga', password: 'operator-password-1' };

describe('console: redrive preview and patch editor (real dev server, Chromium)', function () {
  this.timeout(240_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  let accounts: { name: string; role: 'operator'; passwordHash: string }[];
  before(async () => {
    accounts = [{ name: operator.name, role: 'operator', passwordHash: await hashPassword(operator.password) }];
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), accounts });
    await seedDemoAccounts(t.testDb.db);
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  const operatorPage = () => signIn(t.browser, t.console.url, operator.name, operator.password);
  const url = (path: string) => `${t.console.url}${path}`;

  /** The failed execution of an entry: the first run of the chain its last run belongs to. */
  async function executionOf(entry: DeadLetterEntry): Promise<string> {
    const description = await t.env.client.workflow.getHandle(entry.id, entry.lastRunId).describe();
    return description.raw.workflowExecutionInfo?.firstRunId || entry.lastRunId;
  }

  it('previews a failed payment step by step: reserve done and undone by compensation, capture and release to run; flags a step done and not undone', async () => {
    const [plain, doubled] = await failPayments(t, 2, { toAccount: 'nobody-preview' });
    // A capture that committed but was never compensated (as after a crash between the two): hand-built.
    await t.testDb.db.insertInto('ledger').values({ job_id: doubled!.id, execution: await executionOf(doubled!), step: 'capture', result: '{}', created_at: new Date().toISOString() }).execute();
    const { context, page } = await operatorPage();
    try {
      await page.goto(url(`/dead-letters/preview?type=process-payment&id=${encodeURIComponent(plain!.id)}`));
      const plan = page.locator(`table.plan[data-job="${plain!.id}"]`);
      await plan.waitFor();
      const fates = await plan.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-step'), r.getAttribute('data-fate'), r.querySelector('td:last-child')!.textContent]));
      assert.deepEqual(fates, [
        ['reserve', 'undone', 'done, then undone by compensation: it will run again'],
        ['capture', 'not-done', 'not recorded as done: it will run'],
        ['release', 'not-done', 'not recorded as done: it will run'],
      ]);
      assert.match((await plan.locator('tr[data-step="reserve"]').textContent()) ?? '', /undone by compensate:reserve/);
      assert.equal(await page.locator('tr.double-effect').count(), 0);
      assert.equal(await page.locator('p.summary strong').textContent(), '1');

      await page.goto(url(`/dead-letters/preview?type=process-payment&id=${encodeURIComponent(doubled!.id)}`));
      const flagged = page.locator(`table.plan[data-job="${doubled!.id}"] tr.double-effect`);
      assert.equal(await flagged.count(), 1);
      assert.equal(await flagged.getAttribute('data-step'), 'capture');
      assert.match((await flagged.textContent()) ?? '', /⚠ done and not undone: it will run again \(a double effect\)/);
      await page.getByRole('alert').filter({ hasText: '1 step(s) done and not undone: they will run again.' }).waitFor();
      await page.screenshot({ path: 'test-artifacts/console-redrive-preview.png', fullPage: true });

      // The group's preview: how many, which IDs, and the plans of the first few.
      await page.goto(url(`/dead-letters/preview?type=process-payment&fingerprint=${plain!.fingerprint}`));
      const ids = await page.locator('ul.ids li').allTextContents();
      assert.ok(ids.includes(plain!.id) && ids.includes(doubled!.id), ids.join());
      assert.equal(Number(await page.locator('p.summary strong').textContent()), ids.length);
      assert.ok((await page.locator('table.plan').count()) >= 1);
      // Its cut-off reads in the console's one time format (UTC, 24-hour), as every time does.
      const utc = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;
      assert.match((await page.locator('p.meta', { hasText: 'Entries that fail after' }).locator('time').textContent()) ?? '', utc);
    } finally {
      await context.close();
    }
  });

  it('says the ledger is not available when the console has no database', async () => {
    const [entry] = await failPayments(t, 1, { toAccount: 'nobody-ledger' });
    const bare = await startConsole({ jobs: t.jobs, port: 0, accounts });
    const { context, page } = await signIn(t.browser, bare.url, operator.name, operator.password);
    try {
      await page.goto(`${bare.url}/dead-letters/preview?type=process-payment&id=${encodeURIComponent(entry!.id)}`);
      await page.getByText('the ledger is not available').waitFor();
      const fates = await page.locator('table.plan tbody tr td:last-child').allTextContents();
      assert.deepEqual(fates, ['unknown: it will run', 'unknown: it will run', 'unknown: it will run']);
    } finally {
      await context.close();
      await bare.close();
    }
  });

  it('shows a patch the schema refuses at its field and restarts nothing; invalid JSON names the patch; a fixed patch redrives', async () => {
    const [entry] = await failPayments(t, 1, { toAccount: 'nobody-patch' });
    const id = entry!.id;
    const { context, page } = await operatorPage();
    const check = async (patch: string) => {
      await page.locator('#patch').fill(patch);
      await page.getByRole('button', { name: 'Check the patch' }).click();
      await page.waitForLoadState();
    };
    const unchanged = async () => {
      assert.equal((await t.jobs.deadLetters.show(id)).status, 'dead-lettered', 'still dead-lettered');
      assert.equal((await t.env.client.workflow.getHandle(id).describe()).runId, entry!.lastRunId, 'no new run');
    };
    try {
      await page.goto(url(`/dead-letters/preview?type=process-payment&id=${encodeURIComponent(id)}`));
      await check('{"amount": -5}');
      const amount = page.locator('table.fields tr[data-path="payload.amount"]');
      assert.match((await amount.textContent()) ?? '', /-5/);
      assert.equal(await amount.locator('.field-error').textContent(), 'must be greater than 0');
      assert.equal(await page.locator('table.fields tr[data-path="payload.toAccount"] .field-error').count(), 0, 'the issue is at its own field only');
      assert.equal(await page.getByRole('button', { name: `Redrive ${id}` }).count(), 0, 'no redrive offered for a refused patch');
      await unchanged();

      await check('{"extra": 1}');
      assert.match((await page.locator('table.fields tr[data-path="payload.extra"] .field-error').textContent()) ?? '', /not a field of this job type/, 'an unknown key is shown at its own field');
      await unchanged();

      // Every problem at once: an unknown key beside a bad field, and the ID change beside both.
      await check('{"amount": "x", "typo": 1, "paymentId": "someone-else"}');
      assert.match((await page.locator('table.fields tr[data-path="payload.typo"] .field-error').textContent()) ?? '', /not a field of this job type/, 'the unknown key beside a bad field');
      assert.ok(((await page.locator('table.fields tr[data-path="payload.amount"] .field-error').textContent()) ?? '') !== '', 'the bad field');
      assert.match((await page.locator('table.fields tr[data-path="payload.paymentId"] .field-error').textContent()) ?? '', /must not change what the job ID derives from/, 'the ID change beside them');
      // The check is a GET: its URL carries the patch, and a reload shows the same check, resubmitting nothing.
      const checked = new URL(page.url());
      assert.equal(checked.pathname, '/dead-letters/preview');
      assert.equal(checked.searchParams.get('patch'), '{"amount": "x", "typo": 1, "paymentId": "someone-else"}');
      await page.reload();
      assert.match((await page.locator('table.fields tr[data-path="payload.typo"] .field-error').textContent()) ?? '', /not a field of this job type/, 'the shared URL shows the same check');
      await unchanged();

      await check('{"paymentId": "someone-else"}');
      assert.match((await page.locator('tr[data-path="payload.paymentId"] .field-error').textContent()) ?? '', /must not change what the job ID derives from/);
      await check('{"toAccount": ');
      assert.match((await page.locator('#patch-error').textContent()) ?? '', /^patch: not valid JSON/);
      await check('{"currency": null}');
      assert.match((await page.locator('tr[data-path="payload.currency"]').textContent()) ?? '', /\(missing\)[\s\S]*expected string, received undefined/, 'a removed required field gets a row of its own');
      await unchanged();

      await check('{"toAccount": "bob"}');
      await page.getByRole('status').filter({ hasText: 'The patch is valid for all 1 job(s).' }).waitFor();
      assert.equal(await page.locator('tr[data-path="payload.toAccount"] td').first().textContent(), '"bob"');
      await page.getByLabel('Reason (for the audit trail)').fill('typo in account');
      await page.getByRole('button', { name: `Redrive ${id}` }).click();
      await page.getByRole('status').filter({ hasText: `Redriven ${id}: run` }).waitFor();
      assert.deepEqual(((await t.jobs.result(id)) as { toAccount: string }).toAccount, 'bob');
      const redriven = await t.jobs.deadLetters.show(id);
      assert.equal(redriven.status, 'redriven');
      assert.deepEqual(redriven.audit.at(-1), { ...redriven.audit.at(-1), action: 'redrive', by: operator.name, detail: 'typo in account', patch: { toAccount: 'bob' } });
      // The entry keeps the payload it failed with; its page shows that, the patch, and what the redrive started.
      assert.equal((redriven.payload as { toAccount: string }).toAccount, 'nobody-patch');
      await page.goto(`${t.console.url}/dead-letters/entry/${encodeURIComponent(id)}`);
      const block = async (label: string) => JSON.parse((await page.getByLabel(label, { exact: true }).textContent()) ?? '') as Record<string, unknown>;
      assert.equal((await block('Payload it failed with')).toAccount, 'nobody-patch');
      assert.deepEqual(await block('Patch of its redrive'), { toAccount: 'bob' });
      assert.equal((await block('Payload its redrive started')).toAccount, 'bob');
      assert.match((await page.locator('p.meta', { hasText: 'Read at' }).locator('time').textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    } finally {
      await context.close();
    }
  });
});
