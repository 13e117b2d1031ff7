// A console on a real dev server for the console's tests: a worker on its own task queue, the
// console over the built-in catalog and the test database, and a real Chromium driven by
// playwright-core.
import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { JobClient } from '../../src/client/job-client';
import { startConsole, type RunningConsole, type StartConsoleOptions } from '../../src/console/server';
import { catalog } from '../../src/jobs/catalog';
import type { DeadLetterEntry } from '../../src/workflow-kit/dead-letter-entries';
import { chromiumPath } from './browser';
import { waitFor } from './dlq';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv, type TestWorker } from './env';
import { createActivities, testActivityDeps } from './worker';

/** What a console test file shares. */
export interface ConsoleTestEnv extends JobsTestEnv {
  taskQueue: string;
  jobs: JobClient;
  worker: TestWorker;
  console: RunningConsole;
  browser: Browser;
}

/** Starts a dev server, a worker running until {@link stopConsoleTestEnv}, the console and a browser. */
export async function startConsoleTestEnv(options: Omit<StartConsoleOptions, 'jobs'> & { reportsDir: string; syncSourceUrl?: string }): Promise<ConsoleTestEnv & { running: Promise<void> }> {
  const base = await startJobsTestEnv(startDevServerEnv);
  const taskQueue = uniqueId('tq-console');
  const { reportsDir, syncSourceUrl, ...consoleOptions } = options;
  const worker = await createTestWorker(base.env, base.bundle, { taskQueue, activities: createActivities(testActivityDeps(base.testDb.db, { reportsDir, syncSourceUrl })) });
  const jobs = new JobClient(base.env.client, { catalog, taskQueue });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const running = worker.runUntil(stopped);
  const server = await startConsole({ jobs, db: base.testDb.db, port: 0, ...consoleOptions });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  return Object.assign({ ...base, taskQueue, jobs, worker, console: server, browser, running }, { stop });
}

/** Stops what {@link startConsoleTestEnv} started. */
export async function stopConsoleTestEnv(t: Partial<ConsoleTestEnv & { running: Promise<void>; stop: () => void }>): Promise<void> {
  await t.browser?.close();
  await t.console?.close();
  t.stop?.();
  await t.running;
  await stopJobsTestEnv(t);
}

/** A fresh browser context (its own cookies) and page. */
export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

/** Markup that would run script if a page rendered it as HTML instead of text. */
export const xssProbe = '<img src=x onerror=alert(1)><script>alert(2)</script>';

/** Signs in through the sign-in page in a fresh browser context, landing on `next`. */
export async function signIn(browser: Browser, baseUrl: string, name: string, password: string, next = '/jobs'): Promise<{ context: BrowserContext; page: Page; csrf: string }> {
  const { context, page } = await newPage(browser);
  await page.goto(`${baseUrl}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL((url) => url.pathname === next), page.getByRole('button', { name: 'Sign in' }).click()]);
  return { context, page, csrf: await csrfOf(page) };
}

/** The CSRF token of the session a page was served to (from the header htmx sends). */
export async function csrfOf(page: Page): Promise<string> {
  const headers = await page.locator('body').getAttribute('hx-headers');
  return (JSON.parse(headers ?? '{}') as { 'X-CSRF-Token': string })['X-CSRF-Token'];
}

/** Collects a page's script errors and dialogs, for asserting that none happened. */
export function watchPage(page: Page): { errors: string[]; dialogs: string[] } {
  const seen = { errors: [] as string[], dialogs: [] as string[] };
  // A page answered with 4xx is logged as a failed resource; that is the status under test, not a script error.
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && seen.errors.push(m.text()));
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('dialog', (d) => {
    seen.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return seen;
}

/** Enqueues `n` payments from alice that fail for good (e.g. to an account that does not exist), and waits for their DLQ entries. */
export async function failPayments(t: ConsoleTestEnv, n: number, payment: { toAccount: string; amount?: number }): Promise<DeadLetterEntry[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const { id, handle } = await t.jobs.enqueue('process-payment', { paymentId: uniqueId('pay'), fromAccount: 'alice', currency: 'EUR', amount: 100 + i, ...payment });
    await assert.rejects(handle.result());
    ids.push(id);
  }
  const entries = await waitFor(() => t.jobs.deadLetters.list({ type: 'process-payment', status: 'all' }), (all) => ids.every((id) => all.some((e) => e.id === id)), 20_000);
  return ids.map((id) => entries.find((e) => e.id === id)!);
}
