import assert from 'node:assert/strict';
import os from 'node:os';
import { uniqueId } from '../helpers/env';
import { newPage, startConsoleTestEnv, stopConsoleTestEnv, type ConsoleTestEnv } from '../helpers/console';

describe('console: the overview (real dev server, Chromium)', function () {
  this.timeout(180_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  before(async () => {
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir() });
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  it('shows each job type with its counts, the queues with their workers, and an hour of throughput as charts', async () => {
    const env: ConsoleTestEnv = t;
    for (let i = 0; i < 3; i += 1) await (await env.jobs.enqueue('noop', {}, { id: uniqueId('ov') })).handle.result();
    const { context, page } = await newPage(env.browser);
    try {
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(env.console.url);
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      const noop = page.getByRole('row', { name: /^noop/ });
      await noop.waitFor();
      console.log(await noop.textContent());
      await page.locator('[data-chart="throughput"] canvas').waitFor({ timeout: 10_000 });
      // One time format: the charts' time axis and the tables are UTC, 24-hour; no legend reads "--".
      const legends = await page.locator('.u-legend').allTextContents();
      assert.ok(legends.length >= 1 && legends.every((l) => !l.includes('--')), JSON.stringify(legends));
      assert.ok(legends.some((l) => l.includes('completed') && l.includes('failed')), JSON.stringify(legends));
      const from = await page.getByRole('columnheader', { name: 'From (UTC)' }).count();
      assert.equal(from, 1);
      const slots = (await page.locator('table.compact thead th').allTextContents()).slice(1);
      assert.ok(slots.length === 12 && slots.every((s) => /^([01]\d|2[0-3]):[0-5]\d$/.test(s)), JSON.stringify(slots));
      assert.match((await page.locator('p.meta time').first().textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      assert.match((await noop.textContent()) ?? '', /noop/);
      assert.equal(await page.getByRole('columnheader', { name: 'Runs failed (1 h)' }).count(), 1, 'the label says runs are counted');
      await page.screenshot({ path: 'test-artifacts/console-overview.png', fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('shows the job outbox of the jobs database: committed jobs no relay has started yet', async () => {
    const env: ConsoleTestEnv = t;
    // This environment's worker runs no relay: the row waits.
    await env.testDb.db.transaction().execute((trx) => env.jobs.enqueueInTransaction(trx, 'noop', {}, { id: uniqueId('ov-outbox') }));
    const { context, page } = await newPage(env.browser);
    try {
      const outbox = page.getByRole('table', { name: /committed with enqueueInTransaction/ });
      // The overview is read at most every 3 s (a page shown just before may still be the last read).
      let cells: string[] = [];
      for (const deadline = Date.now() + 15_000; cells[0] !== '1' && Date.now() < deadline; await page.waitForTimeout(500)) {
        await page.goto(env.console.url);
        await outbox.waitFor();
        cells = await outbox.getByRole('cell').allTextContents();
      }
      assert.equal(cells[0], '1', `one job waiting: ${JSON.stringify(cells)}`);
      assert.match(cells[1]!, /^\d+\.\d s$/, 'the oldest one’s age');
    } finally {
      await context.close();
    }
  });

  it('shows each dependency\'s circuit breaker; an operator holds one open with a reason and closes it, each recorded with their name', async () => {
    const env: ConsoleTestEnv = t;
    const { context, page } = await newPage(env.browser);
    try {
      page.on('dialog', (d) => void d.accept());
      await page.goto(env.console.url);
      const smtp = page.locator('tr[data-breaker="smtp"]');
      await smtp.waitFor();
      assert.match((await smtp.textContent()) ?? '', /smtp\s*closed/);
      await smtp.getByPlaceholder('reason (optional)').fill('relay maintenance');
      await Promise.all([page.waitForURL((url) => url.pathname === '/'), smtp.getByRole('button', { name: 'Hold open' }).click()]);
      await page.locator('.notice.ok').filter({ hasText: 'The breaker of smtp is open: ordered by an operator: relay maintenance' }).waitFor();
      const held = (await page.locator('tr[data-breaker="smtp"]').textContent()) ?? '';
      assert.match(held, /open\s*held open by /);
      assert.match(held, /ordered by an operator: relay maintenance/);
      const view = await env.jobs.breakers.get('smtp');
      assert.equal(view.state, 'open');
      assert.ok(view.forced?.by, 'the operator\'s name is recorded');
      await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.locator('tr[data-breaker="smtp"]').getByRole('button', { name: 'Close' }).click()]);
      await page.locator('.notice.ok').filter({ hasText: 'The breaker of smtp is closed' }).waitFor();
      const changes = (await env.jobs.breakers.get('smtp')).changes.map((c) => `${c.from}→${c.to} by ${c.by ?? '?'}: ${c.why}`);
      assert.deepEqual(changes.slice(-2).map((c) => c.replace(/ by [^:]+:/, ' by X:')), ['closed→open by X: ordered by an operator: relay maintenance', 'open→closed by X: ordered by an operator: closed in the console']);
    } finally {
      await context.close();
    }
  });
});
