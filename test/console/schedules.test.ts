import assert from 'node:assert/strict';
import os from 'node:os';
import type { Page } from 'playwright-core';
import { hashPassword } from '../../src/console/users';
import { ScheduleNotFoundError } from '../../src/shared/errors';
import { csrfOf, signIn, startConsoleTestEnv, stopConsoleTestEnv, watchPage, xssProbe } from '../helpers/console';
import { waitFor } from '../helpers/dlq';
import { uniqueId } from '../helpers/env';

const operator = { name: 'ops', password: 'operator-password-1' };
const viewer = { name: 'watcher', password: 'viewer-password-12' };
const payload = { to: 'console-sched@example.com', subject: 'Nightly', body: 'Hello', userId: 'u-console' };

/** The schedule's row on the page. */
const rowOf = (page: Page, id: string) => page.locator(`tr[data-schedule="${id}"]`);

// Schedules need a real server (the time-skipping server has no scheduler).
describe('console: the schedules page (real dev server, Chromium)', function () {
  this.timeout(240_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;

  before(async () => {
    const accounts = [
      { name: operator.name, role: 'operator' as const, passwordHash: await hashPassword(operator.password) },
      { name: viewer.name, role: 'viewer' as const, passwordHash: await hashPassword(viewer.password) },
    ];
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir(), accounts });
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  /** Creates a schedule that would not fire on its own during the test, and waits for visibility to list it. */
  async function nightly(): Promise<string> {
    const { id } = await t.jobs.schedules.create('send-email', payload, { id: uniqueId('nightly'), cron: '0 2 * * *' });
    const listed = await waitFor(() => t.jobs.schedules.list(), (all) => all.some((s) => s.id === id), 30_000);
    assert.ok(listed.some((s) => s.id === id), 'visibility lists the schedule');
    return id;
  }

  it('lets an operator pause with a note, unpause, trigger and delete a schedule through its buttons', async () => {
    const id = await nightly();
    const { context, page } = await signIn(t.browser, t.console.url, operator.name, operator.password, '/schedules');
    const seen = watchPage(page);
    try {
      const row = rowOf(page, id);
      assert.match((await row.textContent()) ?? '', /send-email\s*0 2 \* \* \*\s*active/);
      assert.ok(await row.locator('time').first().getAttribute('datetime'), 'the next run is shown');

      await row.getByPlaceholder('note (optional)').fill(`maintenance ${xssProbe}`);
      await row.getByRole('button', { name: 'Pause', exact: true }).click();
      await page.getByText(`Paused ${id}: maintenance ${xssProbe} (${operator.name})`).waitFor();
      assert.match((await rowOf(page, id).textContent()) ?? '', /paused/);
      assert.equal(await page.locator('img').count(), 0, 'the note is shown as text');
      const paused = await t.jobs.schedules.get(id);
      assert.deepEqual([paused.paused, paused.note], [true, `maintenance ${xssProbe} (${operator.name})`]);

      await rowOf(page, id).getByRole('button', { name: 'Unpause', exact: true }).click();
      await page.getByText(`Unpaused ${id}: unpaused in the console (${operator.name})`).waitFor();
      assert.equal((await t.jobs.schedules.get(id)).paused, false);

      await rowOf(page, id).getByRole('button', { name: 'Trigger now' }).click();
      await page.getByText(`Triggered ${id}`).waitFor();
      const triggered = await waitFor(() => t.jobs.schedules.get(id), (s) => s.recentJobs.length > 0, 30_000);
      const [run] = triggered.recentJobs;
      assert.ok(run?.startsWith(`${id}-`), 'the trigger started a run');
      await t.jobs.temporal.workflow.getHandle(run!).result();
      await page.reload();
      await rowOf(page, id).getByRole('link', { name: run }).waitFor();
      await page.screenshot({ path: 'test-artifacts/console-schedules.png', fullPage: true });
      assert.deepEqual(seen, { errors: [], dialogs: [] });
    } finally {
      await context.close();
    }

    const again = await signIn(t.browser, t.console.url, operator.name, operator.password, '/schedules');
    try {
      const confirms: string[] = [];
      again.page.once('dialog', (d) => {
        confirms.push(d.message());
        void d.accept();
      });
      await rowOf(again.page, id).getByRole('button', { name: 'Delete', exact: true }).click();
      await again.page.getByText(`Deleted ${id}`).waitFor();
      assert.match(confirms[0] ?? '', new RegExp(`^Delete the schedule ${id}\\?`));
      assert.equal(await rowOf(again.page, id).count(), 0, 'the page no longer lists it');
      await assert.rejects(t.jobs.schedules.get(id), ScheduleNotFoundError);
    } finally {
      await again.context.close();
    }
  });

  it('shows a viewer no actions; every action refuses a viewer and a request without the CSRF token, and changes nothing', async () => {
    const id = await nightly();
    const { context, page } = await signIn(t.browser, t.console.url, viewer.name, viewer.password, '/schedules');
    const ops = await signIn(t.browser, t.console.url, operator.name, operator.password, '/schedules');
    try {
      await rowOf(page, id).waitFor();
      assert.equal(await page.getByRole('button', { name: /Pause|Trigger now|Delete/ }).count(), 0);
      const token = await csrfOf(page);
      for (const action of ['pause', 'unpause', 'trigger', 'delete']) {
        const url = `${t.console.url}/schedules/${encodeURIComponent(id)}/${action}`;
        const asViewer = await page.request.post(url, { form: { _csrf: token, note: 'no' }, maxRedirects: 0, headers: { origin: t.console.url } });
        assert.equal(asViewer.status(), 403, `${action} as a viewer`);
        assert.match(await asViewer.text(), /watcher is a viewer: this needs an operator/);
        for (const form of [{ note: 'no' }, { _csrf: 'forged', note: 'no' }] as Record<string, string>[]) {
          const refused = await ops.page.request.post(url, { form, maxRedirects: 0, headers: { origin: t.console.url } });
          assert.equal(refused.status(), 403, `${action} without the right CSRF token`);
        }
      }
      const after = await t.jobs.schedules.get(id);
      assert.deepEqual([after.paused, after.note, after.recentJobs], [false, undefined, []], 'not paused, noted or triggered, and not deleted');
    } finally {
      await context.close();
      await ops.context.close();
    }
  });
});
