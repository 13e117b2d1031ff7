// A console on a real dev server for the console's tests: a worker on its own task queue, the
// console over the built-in catalog and the test database, and a real Chromium driven by
// playwright-core.
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { JobClient } from '../../src/client/job-client';
import { startConsole, type RunningConsole, type StartConsoleOptions } from '../../src/console/server';
import { catalog } from '../../src/jobs/catalog';
import { chromiumPath } from './browser';
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
export async function startConsoleTestEnv(options: Omit<StartConsoleOptions, 'jobs'> & { reportsDir: string }): Promise<ConsoleTestEnv & { running: Promise<void> }> {
  const base = await startJobsTestEnv(startDevServerEnv);
  const taskQueue = uniqueId('tq-console');
  const { reportsDir, ...consoleOptions } = options;
  const worker = await createTestWorker(base.env, base.bundle, { taskQueue, activities: createActivities(testActivityDeps(base.testDb.db, { reportsDir })) });
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
