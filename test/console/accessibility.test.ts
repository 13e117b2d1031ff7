import assert from 'node:assert/strict';
import os from 'node:os';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { newPage, startConsoleTestEnv, stopConsoleTestEnv } from '../helpers/console';
import { uniqueId } from '../helpers/env';

/** axe-core's serious and critical findings on the page, as `rule: target` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

describe('console: accessibility of every page (axe-core in Chromium)', function () {
  this.timeout(240_000);
  let t: Awaited<ReturnType<typeof startConsoleTestEnv>>;
  before(async () => {
    t = await startConsoleTestEnv({ reportsDir: os.tmpdir() });
  });
  after(async () => stopConsoleTestEnv(t ?? {}));

  it('reports no serious or critical violation on any page, with data on it', async () => {
    // Something on every page: a completed job, a dead-lettered payment (a group and an entry), a schedule.
    const done = await t.jobs.enqueue('noop', {}, { id: uniqueId('a11y') });
    await done.handle.result();
    const failed = await t.jobs.enqueue('process-payment', { paymentId: uniqueId('a11y'), fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' });
    await failed.handle.result().catch(() => undefined);
    const [group] = await t.jobs.deadLetters.groups('process-payment');
    assert.ok(group, 'the payment is dead-lettered');
    await t.jobs.schedules.create('noop', {}, { every: '1h', id: uniqueId('a11y-schedule') });
    const pages = ['/', '/login', '/jobs', `/jobs/${encodeURIComponent(done.id)}`, `/jobs/${encodeURIComponent(failed.id)}`, '/dead-letters', '/schedules', '/tasks',
      `/dead-letters/process-payment/${encodeURIComponent(group.fingerprint)}`, `/dead-letters/entry/${encodeURIComponent(failed.id)}`];
    const { context, page } = await newPage(t.browser);
    const found: string[] = [];
    try {
      for (const path of pages) {
        const res = await page.goto(`${t.console.url}${path}`);
        assert.equal(res?.status(), 200, `${path} answers`);
        await page.locator('h1').first().waitFor();
        found.push(...(await seriousViolations(page)).map((v) => `${path}: ${v}`));
      }
    } finally {
      await context.close();
    }
    assert.deepEqual(found, []);
  });
});
