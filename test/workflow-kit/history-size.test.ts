import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { catalog } from '../../src/jobs/catalog';
import { bundleJobWorkflows } from '../../src/testing/test-worker';
import { catalog as greetCatalog } from '../../bench/activity/catalog';
import { greetJob } from '../../bench/activity/greet';
import { jobMaxAttempts } from '../../src/catalog/define-job';
import { jobWorkflowStart } from '../../src/catalog/start-job';
import { createActivities as createGreetActivities } from '../../bench/activity/activities';
import * as plainActivities from '../../bench/plain/activities';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv } from '../helpers/env';
import { startDevServerEnv } from '../helpers/env';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import { createActivities, testActivityDeps } from '../helpers/worker';

// Every history event a job writes is work the Temporal server does for every job of every user,
// so what a job writes beyond the plain workflow is held here (issue 33). A change that makes a job
// write more fails this test; one that makes it write less lowers the figures below.

/** A failed job of a team's type: the plain workflow's events up to its activity's failure, then the hand-off to the DLQ. */
const failedWithHandOff = [
  'WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED',
  'ACTIVITY_TASK_SCHEDULED', 'ACTIVITY_TASK_STARTED', 'ACTIVITY_TASK_FAILED',
  'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED',
  // the hand-off
  'ACTIVITY_TASK_SCHEDULED', 'ACTIVITY_TASK_STARTED', 'ACTIVITY_TASK_COMPLETED',
  'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED',
  'WORKFLOW_EXECUTION_FAILED',
];

/** The events of each built-in type's completed job (the payloads below), at most. */
const budgets: Record<string, number> = {
  'send-email': 11,
  'process-payment': 23,
  'generate-report': 12,
  noop: 6,
  // Two runs of 2 records each: the first continues as new (pagesPerRun: 1).
  'sync-data': 23,
};

/** The event types of a workflow's history, every run of it (newest last), without the prefix. */
async function eventTypes(t: JobsTestEnv, workflowId: string): Promise<string[]> {
  const runs: string[][] = [];
  let runId: string | undefined;
  for (;;) {
    const history = await t.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.unshift(events.map((e) => temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)));
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    runId = started?.continuedExecutionRunId ?? undefined;
    if (!runId) break;
  }
  return runs.flat().map((type) => type.replace(/^EVENT_TYPE_/, ''));
}

describe('history events per job (dev server): no more than the plain workflow writes, and each type within its budget', function () {
  this.timeout(180_000);
  let t: JobsTestEnv;
  let dir: string;
  let source: TestSyncSource;
  before(async () => {
    t = await startJobsTestEnv(startDevServerEnv);
    dir = await mkdtemp(path.join(os.tmpdir(), 'history-size-'));
    source = await startSyncSource();
    await seedDemoAccounts(t.testDb.db);
  });
  after(async () => {
    await source?.close();
    await stopJobsTestEnv(t ?? {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a team’s regular-activity job writes the plain one-activity workflow’s events, and its record reads as before', async () => {
    const plainQueue = uniqueId('plain');
    const plain = await Worker.create({ connection: t.env.nativeConnection, taskQueue: plainQueue, workflowsPath: require.resolve('../../bench/plain/workflows'), activities: plainActivities });
    const plainId = uniqueId('plain');
    await plain.runUntil(t.env.client.workflow.execute('greetWorkflow', { taskQueue: plainQueue, workflowId: plainId, args: ['Ada'] }));

    const ourQueue = uniqueId('greet');
    const bundle = await bundleJobWorkflows(require.resolve('../../bench/activity/workflows'));
    const worker = await createTestWorker(t.env, bundle, { taskQueue: ourQueue, catalog: greetCatalog, activities: createGreetActivities() });
    const jobs = new JobClient(t.env.client, { catalog: greetCatalog, taskQueue: ourQueue });
    const job = await worker.runUntil(async () => {
      const started = await jobs.enqueue('greet', { name: 'Ada' });
      await started.handle.result();
      return started;
    });

    const theirs = await eventTypes(t, plainId);
    const ours = await eventTypes(t, job.id);
    console.log(`      events per job: plain ${theirs.length}, ours ${ours.length} (${ours.filter((type) => !theirs.includes(type)).join(', ') || 'no other type'})`);
    assert.deepEqual(ours, theirs, 'the same events in the same order');
    // What the final-state memo said, the record reads from the start's outline and the step's header.
    const description = await t.env.client.workflow.getHandle(job.id).describe();
    assert.equal(description.memo?.jobState, undefined, 'no final-state memo');
    const record = await jobs.get(job.id);
    assert.deepEqual(
      { status: record.status, step: record.step, steps: record.steps, attempts: record.attempts, maxAttempts: record.maxAttempts },
      { status: 'completed', step: 'greet', steps: ['greet'], attempts: 1, maxAttempts: jobMaxAttempts(greetJob) },
    );
  });

  it('a team’s job that fails writes the plain workflow’s failure and its hand-off to the DLQ, and its record names the step', async () => {
    const taskQueue = uniqueId('greet-fails');
    const bundle = await bundleJobWorkflows(require.resolve('../../bench/activity/workflows'));
    const worker = await createTestWorker(t.env, bundle, { taskQueue, catalog: greetCatalog, activities: createGreetActivities() });
    const jobs = new JobClient(t.env.client, { catalog: greetCatalog, taskQueue });
    const id = uniqueId('greet-fails');
    // A payload the client would refuse, started as an older client might have: the activity refuses it for good.
    const { workflowType, options } = jobWorkflowStart({ definition: greetJob, id, payload: { name: 42 }, taskQueue, mode: 'enqueue' });
    await worker.runUntil(async () => {
      const handle = await t.env.client.workflow.start(workflowType, options);
      await assert.rejects(handle.result());
    });
    const ours = await eventTypes(t, id);
    console.log(`      events per failed job: ${ours.length}`);
    assert.deepEqual(ours, failedWithHandOff);
    const record = await jobs.get(id);
    assert.equal((await t.env.client.workflow.getHandle(id).describe()).memo?.jobState, undefined, 'no final-state memo');
    assert.deepEqual(
      { status: record.status, step: record.step, attempts: record.attempts, maxAttempts: record.maxAttempts, error: record.error?.type },
      { status: 'failed', step: 'greet', attempts: 1, maxAttempts: jobMaxAttempts(greetJob), error: 'jobs:invalid-payload' },
    );
  });

  it('each built-in job type’s completed job writes no more events than its budget', async () => {
    const taskQueue = uniqueId('budget');
    const deps = { ...testActivityDeps(t.testDb.db, { reportsDir: dir, syncSourceUrl: source.url }), email: { outboxDir: dir, from: 'jobs@history-size' } };
    const worker = await createTestWorker(t.env, t.bundle, { taskQueue, activities: createActivities(deps) });
    const jobs = new JobClient(t.env.client, { catalog, taskQueue });
    source.setRecords('customers', makeRecords(4));
    const ids = await worker.runUntil(async () => {
      const types = ['send-email', 'process-payment', 'generate-report', 'noop', 'sync-data'];
      const started = await Promise.all([
        jobs.enqueue('send-email', { to: 'ada@example.com', subject: 'Hi', body: 'Hello', userId: 'u1' }),
        jobs.enqueue('process-payment', { paymentId: uniqueId('pay'), fromAccount: 'alice', toAccount: 'bob', amount: 100, currency: 'EUR' }),
        jobs.enqueue('generate-report', { from: '2026-01-01', to: '2027-01-01', format: 'csv' }),
        jobs.enqueue('noop', { failAttempts: 0 }),
        jobs.enqueue('sync-data', { source: 'customers', pageSize: 2, pagesPerRun: 1 }),
      ]);
      await Promise.all(started.map((job) => job.handle.result()));
      return started.map((job, i) => ({ type: types[i]!, id: job.id }));
    });
    const counts: Record<string, number> = Object.fromEntries(await Promise.all(ids.map(async ({ type, id }) => [type, (await eventTypes(t, id)).length] as const)));
    console.log(`      events per completed job: ${JSON.stringify(counts)}`);
    assert.deepEqual(Object.keys(counts).sort(), Object.keys(budgets).sort(), 'every built-in type measured');
    for (const [type, count] of Object.entries(counts)) assert.ok(count <= budgets[type]!, `${type}: ${count} events, budget ${budgets[type]}`);
  });
});
