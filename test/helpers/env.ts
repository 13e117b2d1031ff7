import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { jobTypeSearchAttribute } from '../../src/catalog/start-job';
import { jobTypes, registry } from '../../src/jobs/registry';
import type { JobDefinition } from '../../src/catalog/define-job';
import { defaultConcurrency, planQueues } from '../../src/catalog/task-queues';
import { queueWorkerOptions, type CreateWorkerOptions } from '../../src/worker/create-worker';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { bundleWorkflowCode, Worker, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createTimeSkippingEnv } from '../../src/provision/test-server';
import { loadConfig } from '../../src/shared/config';
import { devServerDynamicConfigArgs } from '../../src/shared/dev-server-config';
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
    server: { executable: { type: 'existing-path', path: cli }, searchAttributes: [jobTypeSearchAttribute], extraArgs: ['--log-level', 'error', ...devServerDynamicConfigArgs()] },
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

/** The workers of a test: one per task queue of the deployment, run together. */
export interface TestWorker {
  /** One worker per task queue: the shared one first, then each job type's own. */
  workers: Worker[];
  /** Runs every worker until the promise settles, then shuts them all down; resolves to its value. */
  runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R>;
}

/**
 * Creates workers on the test environment's connection with the given bundle and activities, on
 * `taskQueue` (the shared queue) and on every queue a job type declares of its own, as the real
 * worker does, so a client started with the same `taskQueue` reaches every job.
 */
export async function createTestWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  options: Pick<WorkerOptions, 'taskQueue' | 'activities' | 'dataConverter'> & {
    /** Apply each queue's declared concurrency and rate limit, as `npm run worker` does, with these overrides. @defaultValue the SDK's defaults */
    limits?: Pick<CreateWorkerOptions, 'concurrency' | 'workflowConcurrency'>;
    /** The job definitions whose queues to serve. @defaultValue the registry's */
    definitions?: readonly JobDefinition[];
  },
): Promise<TestWorker> {
  const { limits, definitions = jobTypes.map((t) => registry[t]), ...rest } = options;
  const plans = planQueues(options.taskQueue, definitions);
  if (!plans.some((p) => p.taskQueue === options.taskQueue)) plans.unshift({ taskQueue: options.taskQueue, shared: true, types: [], concurrency: defaultConcurrency });
  const workers = await Promise.all(
    plans.map((plan) =>
      Worker.create({ connection: env.nativeConnection, workflowBundle: bundle, ...rest, ...(limits ? queueWorkerOptions(plan, limits) : { taskQueue: plan.taskQueue }) }),
    ),
  );
  return {
    workers,
    async runUntil<R>(fnOrPromise: Promise<R> | (() => Promise<R>)): Promise<R> {
      const until = typeof fnOrPromise === 'function' ? fnOrPromise() : fnOrPromise;
      const results = await Promise.all(workers.map((w) => w.runUntil(until)));
      return results[0] as R;
    },
  };
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
