import assert from 'node:assert/strict';
import os from 'node:os';
import type { Page } from 'playwright-core';
import { startJob } from '../../src/catalog/start-job';
import { quoteQueryValue } from '../../src/client/job-list';
import { hashPassword } from '../../src/console/users';
import { catalog } from '../../src/jobs/catalog';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { csrfOf, signIn, startConsoleTestEnv, stopConsoleTestEnv, watchPage, xssProbe } from '../helpers/console';
import { waitFor } from '../helpers/dlq';
import { uniqueId } from '../helpers/env';

const ui = 'http://temporal-ui.example:8233';
const operator = { name: 'ops', password: 'operator-password-1' };
const viewer = { name: 'watcher', password: 'viewer-password-12' };
const jobHref = (id: string) => `/jobs/${encodeURIComponent(id)}`;

/** The job IDs in the list region, in order. */
const listedIds = (page: Page) => page.locator('#jobs-live tbody th a').allTextContents();

describe('console: the jobs list and the job page (real dev server, Chromium)', function () {
  this.timeout(300_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  const prefix = uniqueId('cj');
  const noops = Array.from({ length: 60 }, (_, i) => `${prefix}-noop-${String(i).padStart(2, '0')}`);
  const payments = [0, 1, 2].map((i) => `${prefix}-pay-${i}`);
  const paymentIds = payments.map((p) => `payment:${p}`);
  const running = `${prefix}-sync-running`;
  let createdBetween: Date;

  before(async () => {
    const accounts = [
      { name: operator.name, role: 'operator' as const, passwordHash: await hashPassword(operator.password) },
      { name: viewer.name, role: 'viewer' as const, passwordHash: await hashPassword(viewer.password) },
    ];
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), accounts, temporalUiUrl: ui });
    await seedDemoAccounts(t.testDb.db);
    for (let i = 0; i < noops.length; i += 10) await Promise.all(noops.slice(i, i + 10).map(async (id) => (await t.jobs.enqueue('noop', {}, { id })).handle.result()));
    await new Promise((r) => setTimeout(r, 50));
    createdBetween = new Date();
    await new Promise((r) => setTimeout(r, 50));
    for (const paymentId of payments) {
      const { handle } = await t.jobs.enqueue('process-payment', { paymentId, fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' });
      await assert.rejects(handle.result());
    }
    // Without SYNC_SOURCE_URL a sync-data job waits for its setting: running, for days.
    await t.jobs.enqueue('sync-data', { source: 'console-test' }, { id: running });
    for (const id of paymentIds) {
      const entry = await waitFor(() => t.jobs.deadLetters.show(id).catch(() => undefined), (e) => e?.status === 'dead-lettered', 30_000);
      assert.equal(entry?.status, 'dead-lettered', `${id} is dead-lettered`);
    }
    // The second payment is redriven to a real account: one job, two runs (the first failed).
    const redriven = await t.jobs.deadLetters.redrive(paymentIds[1]!, { patch: { toAccount: 'bob' }, reason: 'wrong account' });
    await t.jobs.temporal.workflow.getHandle(paymentIds[1]!, redriven.runId).result();
    const indexed = (query: string) => t.jobs.temporal.workflow.count(query).then((c) => c.count);
    assert.equal(await waitFor(() => indexed(`WorkflowId STARTS_WITH ${quoteQueryValue(prefix)} AND ExecutionStatus = 'Completed'`), (n) => n === noops.length, 30_000), noops.length, 'visibility has indexed the noops');
    assert.equal(await waitFor(() => indexed(`WorkflowId = ${quoteQueryValue(paymentIds[1]!)} AND ExecutionStatus = 'Completed'`), (n) => n === 1, 30_000), 1, 'and the redriven payment');
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  it('lists jobs 50 a page with a Next page link that keeps the filters, and filters by type, status, ID prefix and creation time', async () => {
    const { context, page } = await signIn(t.browser, t.console.url, viewer.name, viewer.password);
    const seen = watchPage(page);
    try {
      await page.goto(`${t.console.url}/jobs?type=noop&prefix=${encodeURIComponent(prefix)}`);
      const first = await listedIds(page);
      assert.equal(first.length, 50);
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      assert.equal(await page.getByLabel('ID prefix').inputValue(), prefix, 'the filters are kept');
      assert.equal(await page.getByLabel('Type').inputValue(), 'noop');
      const second = await listedIds(page);
      assert.equal(second.length, 10);
      assert.equal(await page.getByRole('link', { name: 'Next page' }).count(), 0, 'the last page has no next');
      assert.deepEqual([...first, ...second].sort(), noops, 'page 2 holds the rest, nothing twice');
      const otherFilters = new URL(page.url());
      otherFilters.searchParams.set('type', 'send-email');
      assert.equal((await page.goto(otherFilters.href))?.status(), 400, "a cursor is refused with another list's filters");
      await page.getByText(/^cursor: is not a page cursor this list gave for these filters/).waitFor();

      // Through the form: failed payments of this run. The redriven one completed, so its earlier failure is left out.
      await page.goto(`${t.console.url}/jobs`);
      await page.getByLabel('Type').selectOption('process-payment');
      await page.getByLabel('Status').selectOption('failed');
      await page.getByLabel('ID prefix').fill(`payment:${prefix}`);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=failed/);
      assert.deepEqual((await listedIds(page)).sort(), [paymentIds[0], paymentIds[2]]);
      await page.getByLabel('Status').selectOption('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === '');
      assert.deepEqual((await listedIds(page)).sort(), paymentIds, 'one row per job: the redriven payment once');
      assert.match((await page.getByRole('row', { name: new RegExp(paymentIds[1]!) }).textContent()) ?? '', /completed/);
      await page.screenshot({ path: 'test-artifacts/console-jobs.png', fullPage: true });

      await page.goto(`${t.console.url}/jobs?status=running&prefix=${encodeURIComponent(prefix)}`);
      assert.deepEqual(await listedIds(page), [running]);

      const at = encodeURIComponent(createdBetween.toISOString());
      await page.goto(`${t.console.url}/jobs?prefix=${encodeURIComponent(prefix)}&from=${at}`);
      assert.deepEqual(await listedIds(page), [running], 'created from: only what was enqueued after');
      await page.goto(`${t.console.url}/jobs?prefix=${encodeURIComponent(prefix)}&to=${at}`);
      const before = await listedIds(page);
      assert.equal(before.length, 50);
      assert.ok(before.every((id) => noops.includes(id)), 'created before: only the noops');

      // The list region refreshes itself: a job enqueued while the page is open appears without a reload.
      const late = `${prefix}-late`;
      await page.goto(`${t.console.url}/jobs?prefix=${encodeURIComponent(late)}`);
      await page.getByText('No jobs match.').waitFor();
      await (await t.jobs.enqueue('noop', {}, { id: late })).handle.result();
      await page.locator('#jobs-live tbody th a', { hasText: late }).waitFor({ timeout: 20_000 });
      assert.deepEqual(seen, { errors: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('says which filter is wrong, with 400', async () => {
    const { context, page } = await signIn(t.browser, t.console.url, viewer.name, viewer.password);
    try {
      const response = await page.goto(`${t.console.url}/jobs?status=sleeping&type=nope&from=soon`);
      assert.equal(response?.status(), 400);
      await page.getByText('status: must be one of running, completed, failed, cancelled, terminated, timed-out').waitFor();
      await page.getByText(`type: must be one of ${catalog.types.join(', ')}`).waitFor();
      await page.getByText(/^from: must be a date or date-time/).waitFor();
      assert.equal(await page.getByLabel('Status').inputValue(), '', 'an unknown status is not a choice of the form');
      assert.equal((await page.goto(`${t.console.url}/jobs?cursor=bm90LWEtdG9rZW4`))?.status(), 400, 'a cursor Temporal did not give');
      await page.getByText(/^cursor: /).waitFor();
    } finally {
      await context.close();
    }
  });

  it("shows a failed payment's record, activities, error, compensation, dead-letter entry and audit trail, payload, and its Web UI link", async () => {
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password);
    const seen = watchPage(page);
    try {
      const id = paymentIds[0]!;
      await page.goto(`${t.console.url}${jobHref(id)}`);
      const record = page.locator('#job-live dl.record');
      await record.getByText('failed', { exact: true }).waitFor();
      await record.getByText('process-payment:unknown-account: account "nobody" does not exist').waitFor();
      await record.getByText('done; undid reserve').waitFor();
      const capture = page.getByRole('row', { name: /^capturePayment/ });
      assert.match((await capture.textContent()) ?? '', /activity\s*1\s*failed\s*process-payment:unknown-account: account "nobody" does not exist/);
      assert.match((await page.getByRole('row', { name: /^reserveFunds/ }).textContent()) ?? '', /completed/);
      await page.getByText('Temporal keeps only the last failure of a retried activity').waitFor();
      assert.match((await page.locator('pre.payload').textContent()) ?? '', /"toAccount": "nobody"/);
      const dlq = page.locator('section[aria-labelledby="dlq-h"]');
      await dlq.getByText('dead-lettered', { exact: true }).first().waitFor();
      assert.match((await dlq.locator('tbody tr').first().textContent()) ?? '', /dead-lettered\s*run \S+ failed after 1 attempt\(s\)\s*–\s*process-payment:unknown-account/);
      const { runId } = await t.jobs.temporal.workflow.getHandle(id).describe();
      assert.equal(await page.getByRole('link', { name: 'History in the Temporal Web UI' }).getAttribute('href'), `${ui}/namespaces/default/workflows/${encodeURIComponent(id)}/${runId}/history`);
      await page.screenshot({ path: 'test-artifacts/console-job.png', fullPage: true });

      // The redriven payment: completed now, its entry redriven, the redrive in the audit trail with its patch.
      await page.goto(`${t.console.url}${jobHref(paymentIds[1]!)}`);
      await page.locator('#job-live dl.record').getByText('completed', { exact: true }).waitFor();
      assert.match((await dlq.getByRole('row', { name: /redrive/ }).textContent()) ?? '', /started run .*wrong account.*"toAccount":"bob"/s);

      const missing = await page.goto(`${t.console.url}${jobHref(`${prefix}/no such job?`)}`);
      assert.equal(missing?.status(), 404);
      await page.getByText(`No job has the ID ${prefix}/no such job?`).waitFor();
      assert.deepEqual(seen, { errors: [], dialogs: [] });
    } finally {
      await context.close();
    }
  });

  it('lets an operator cancel a running job with the button, after confirming; the job ends cancelled', async () => {
    const id = `${prefix}-sync-cancel`;
    await t.jobs.enqueue('sync-data', { source: 'console-cancel' }, { id });
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password);
    try {
      await page.goto(`${t.console.url}${jobHref(id)}`);
      await page.locator('#job-live dl.record').getByText(/for a setting its step needs/).waitFor({ timeout: 30_000 });
      const confirms: string[] = [];
      page.once('dialog', (d) => {
        confirms.push(d.message());
        void d.accept();
      });
      await page.getByRole('button', { name: 'Cancel job' }).click();
      await page.getByText(`Cancellation requested by ${operator.name}`).waitFor();
      assert.match(confirms[0] ?? '', /^Cancel this job\?/);
      await page.locator('#job-live dl.record').getByText('cancelled', { exact: true }).waitFor({ timeout: 30_000 });
      assert.equal((await t.jobs.get(id)).status, 'cancelled');
      assert.equal(await page.getByRole('button', { name: 'Cancel job' }).count(), 0, 'a cancelled job offers no Cancel');
    } finally {
      await context.close();
    }
  });

  it('hides payloads from a viewer; the cancel route refuses a viewer and a request without the CSRF token, and changes nothing', async () => {
    const { context, page } = await signIn(t.browser, t.console.url, viewer.name, viewer.password);
    const ops = await signIn(t.browser, t.console.url, operator.name, operator.password);
    try {
      await page.goto(`${t.console.url}${jobHref(paymentIds[1]!)}`);
      await page.getByText('hidden (viewer)', { exact: true }).first().waitFor();
      assert.equal(await page.locator('pre.payload').count(), 0);
      const text = (await page.locator('main').textContent()) ?? '';
      assert.ok(!/"?(fromAccount|toAccount)"?\s*:/.test(text), 'no payload value, not even a redrive patch');
      assert.match((await page.getByRole('row', { name: /redrive/ }).textContent()) ?? '', /hidden \(viewer\)/);

      await page.goto(`${t.console.url}${jobHref(running)}`);
      await page.locator('#job-live dl.record').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Cancel job' }).count(), 0, 'a viewer is offered no Cancel');
      const url = `${t.console.url}${jobHref(running)}/cancel`;
      const asViewer = await page.request.post(url, { form: { _csrf: await csrfOf(page) }, maxRedirects: 0, headers: { origin: t.console.url } });
      assert.equal(asViewer.status(), 403);
      assert.match(await asViewer.text(), /watcher is a viewer: this needs an operator/);
      await ops.page.goto(`${t.console.url}${jobHref(running)}`);
      for (const form of [{}, { _csrf: 'forged' }] as Record<string, string>[]) {
        const refused = await ops.page.request.post(url, { form, maxRedirects: 0, headers: { origin: t.console.url } });
        assert.equal(refused.status(), 403);
        assert.match(await refused.text(), /CSRF token missing or wrong/);
      }
      const history = await t.jobs.temporal.workflow.getHandle(running).fetchHistory();
      assert.ok(!history.events?.some((e) => e.workflowExecutionCancelRequestedEventAttributes), 'no cancellation was requested');
      assert.equal((await t.jobs.temporal.workflow.getHandle(running).describe()).status.name, 'RUNNING');
    } finally {
      await context.close();
      await ops.context.close();
    }
  });

  it('renders a job ID, a payload field and an error message holding markup as text', async () => {
    const id = `${prefix}-xss-${xssProbe}?#%&/${'x'.repeat(200)}`;
    const definition = catalog.definition('process-payment')!;
    const handle = await startJob(t.jobs.temporal, { definition, id, payload: { paymentId: uniqueId('xss'), fromAccount: 'alice', toAccount: xssProbe, amount: 1, currency: 'EUR' }, taskQueue: t.taskQueue, mode: 'enqueue' });
    await assert.rejects(handle.result());
    assert.ok(await waitFor(() => t.jobs.deadLetters.show(id).catch(() => undefined), (e) => e !== undefined, 30_000), 'the job is dead-lettered');
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password);
    const seen = watchPage(page);
    try {
      await page.goto(`${t.console.url}/jobs?prefix=${encodeURIComponent(`${prefix}-xss-`)}`);
      await page.locator('#jobs-live tbody th a').waitFor({ timeout: 20_000 });
      assert.deepEqual(await listedIds(page), [id]);
      await page.locator('#jobs-live tbody th a').click();
      await page.waitForURL((url) => url.pathname === jobHref(id));
      await page.getByRole('heading', { name: `Job ${id}` }).waitFor();
      await page.locator('#job-live dl.record').getByText(`account "${xssProbe}" does not exist`, { exact: false }).first().waitFor();
      assert.match((await page.locator('pre.payload').textContent()) ?? '', new RegExp(`"toAccount": "${xssProbe.replace(/[()/]/g, '\\$&')}"`));
      assert.equal(await page.locator('img').count(), 0, 'no element came from the markup');
      assert.equal(await page.locator('script:not([src])').count(), 0);
      assert.deepEqual(seen, { errors: [], dialogs: [] }, 'no script ran');
    } finally {
      await context.close();
    }
  });
});
