import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { type TestDb } from '../helpers/db';
import { runStorm } from '../helpers/dlq-storm';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';

/** Payments that fail in the storm: a small one in `npm test`, 20,000 under `npm run soak:dlq`. */
const stormJobs = Number(process.env.STORM_JOBS ?? 800);

// A provider that rejects everything: every payment to an unknown account fails for good at its
// first step, as fast as the worker can run them, while an operator lists, groups, pages and
// redrives the DLQ. On a real dev server: the time-skipping one enforces none of Temporal's limits.
describe(`failure storm: ${stormJobs} payments fail for good at once (real dev server)`, function () {
  this.timeout((10 + stormJobs / 8 / 60) * 60_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
    await seedDemoAccounts(testDb.db);
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  it('puts every failed job in the DLQ exactly once, leaves none Running, keeps each DLQ run far below Temporal\'s limits, and serves the operator throughout', async () => {
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    await worker.runUntil(runStorm({ client: env.client, jobs, taskQueue, jobctlEnv: { TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue } }, stormJobs));
  });
});
