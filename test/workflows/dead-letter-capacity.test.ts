import assert from 'node:assert/strict';
import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { startDeadLetterQueue } from '../../src/activity/dead-letter';
import { JobClient } from '../../src/client/job-client';
import { deadLetterWorkflowId } from '../../src/catalog/dead-letter';
import { type TestDb } from '../helpers/db';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { waitFor } from '../helpers/dlq';
import { catalog } from '../../src/jobs/catalog';

// The DLQ's capacity and its continue-as-new hand-over, driven by signals and read by queries, on a
// real dev server: the time-skipping server does not enforce the 2 MB continue-as-new input limit.
describe('dead-letter queue capacity (real dev server)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  async function setUp() {
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    return { worker, taskQueue };
  }

  it('keeps 5,000 entries across continue-as-new, with signals arriving during each hand-over', async function () {
    this.timeout(300_000);
    const { worker, taskQueue } = await setUp();
    const type = 'generate-report';
    const dlqId = deadLetterWorkflowId(taskQueue, type);
    await env.client.workflow.start('deadLetterWorkflow', { workflowId: dlqId, taskQueue, args: [{ type, continueAsNewAfterEvents: 400 }] });
    const firstRun = (await env.client.workflow.getHandle(dlqId).describe()).runId;
    const n = 5000;
    await worker.runUntil(async () => {
      for (let i = 0; i < n; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, k) => {
            const id = `bulk-${i + k}`;
            return startDeadLetterQueue(env.client, taskQueue, type, {
              id, type, runId: `run-${id}`, payload: { n: i + k }, attempts: 1, failedAt: new Date().toISOString(),
              error: { type: 'jobs:unexpected', message: `boom ${i + k}` }, fingerprint: 'f00', fingerprintText: 'jobs:unexpected: boom <n>',
            });
          }),
        );
      }
      const counts = await waitFor(() => new JobClient(env.client, { catalog, taskQueue }).deadLetters.counts(), (c) => (c[type]?.['dead-lettered'] ?? 0) >= n, 60_000);
      assert.equal(counts[type]?.['dead-lettered'], n, 'no entry lost');
      const description = await env.client.workflow.getHandle(dlqId).describe();
      assert.notEqual(description.runId, firstRun, 'the DLQ continued as new');
      assert.ok(description.historyLength < 2000, `history bounded (${description.historyLength} events)`);
    });
  });
});
