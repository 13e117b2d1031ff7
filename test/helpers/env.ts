import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { jobTypeSearchAttribute } from '../../src/client/start-job';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { bundleWorkflowCode, Worker, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createTimeSkippingEnv } from '../../src/provision/test-server';
import { loadConfig } from '../../src/shared/config';
import { registerSearchAttributes } from '../../src/shared/search-attributes';
import { sqliteTestDb, type TestDb } from './db';

/** Repository root. */
export const repoRoot = path.resolve(__dirname, '../..');

/** Starts the time-skipping test server through the same provisioning routes as `npm run provision`. */
export async function startTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const config = loadConfig();
  const { value } = await createTimeSkippingEnv({ cacheDir: config.cacheDir, testServerPath: config.testServerPath });
  await registerSearchAttributes(value.connection, value.namespace ?? 'default');
  return value;
}

/**
 * Starts a real local dev server (the provisioned `temporal` CLI, in memory) for tests that need
 * the real server's behaviour rather than time skipping, e.g. workflow updates.
 */
export async function startDevServerEnv(): Promise<TestWorkflowEnvironment> {
  const config = loadConfig();
  const { value: cli } = await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath });
  return TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: [jobTypeSearchAttribute], extraArgs: ['--log-level', 'error'] },
  });
}

/** Bundles the real workflows once per test file. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
    workflowInterceptorModules: [require.resolve('../../src/workflows/interceptors')],
    logger: quietBundlerLogger,
  });
}

/** A unique name for a test's task queue or workflow ID. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** Creates a worker on the test environment's connection with the given bundle and activities. */
export function createTestWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  options: Pick<WorkerOptions, 'taskQueue' | 'activities'>,
): Promise<Worker> {
  return Worker.create({ connection: env.nativeConnection, workflowBundle: bundle, ...options });
}

const noop = () => {};
const quietBundlerLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };

/** What a job test file shares across its tests: one server, one workflow bundle, one SQLite database. */
export interface JobsTestEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleWithSourceMap;
  testDb: TestDb;
}

/** Starts a test file's server (time-skipping unless told otherwise), bundle and database. */
export async function startJobsTestEnv(start: () => Promise<TestWorkflowEnvironment> = startTimeSkippingEnv): Promise<JobsTestEnv> {
  const env = await start();
  return { env, bundle: await bundleWorkflows(), testDb: await sqliteTestDb() };
}

/** Closes what {@link startJobsTestEnv} started; safe after a partial start. */
export async function stopJobsTestEnv(jobs: Partial<JobsTestEnv>): Promise<void> {
  await jobs.testDb?.close();
  await jobs.env?.teardown();
}
