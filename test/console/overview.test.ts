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
      await page.screenshot({ path: 'test-artifacts/console-overview.png', fullPage: true });
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
