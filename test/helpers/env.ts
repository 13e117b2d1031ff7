import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkerOptions, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { catalog as builtInCatalog } from '../../src/jobs/catalog';
import type { Catalog } from '../../src/catalog/catalog';
import type { CreateWorkerOptions } from '../../src/worker/create-worker';
import { bundleJobWorkflows, createJobTestWorker, startDevServerEnv, startTimeSkippingEnv, type JobTestWorker } from '../../src/testing';
import { sqliteTestDb, type TestDb } from './db';

export { startDevServerEnv, startTimeSkippingEnv };

/** Repository root. */
export const repoRoot = path.resolve(__dirname, '../..');

/** Bundles the built-in workflows once per test file, through the test kit. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleJobWorkflows(require.resolve('../../src/workflows'));
}

/** A unique name for a test's task queue or workflow ID. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/** The workers of a test: one per task queue of the deployment, run together. */
export type TestWorker = JobTestWorker;

/**
 * The test kit's workers over the built-in catalog (or the given one), with the DLQ's activities
 * and the interceptors, on `taskQueue` and every queue a job type declares of its own.
 */
export async function createTestWorker(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  options: Pick<WorkerOptions, 'taskQueue' | 'dataConverter'> & {
    activities?: object;
    /** Apply each queue's declared concurrency and rate limit, as `npm run worker` does, with these overrides. @defaultValue the SDK's defaults */
    limits?: Pick<CreateWorkerOptions, 'concurrency' | 'workflowConcurrency'>;
    /** The job types whose queues to serve. @defaultValue the built-in catalog */
    catalog?: Catalog;
    /** The client the DLQ's activities start workflows with. @defaultValue the environment's */
    deadLetterClient?: Client;
  },
): Promise<TestWorker> {
  return createJobTestWorker(env, bundle, { ...options, catalog: options.catalog ?? builtInCatalog });
}

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
