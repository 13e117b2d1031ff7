import assert from 'node:assert/strict';
import os from 'node:os';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { currentJob } from '../../src/activity-kit/job-attempt';
import { jobActivityInterceptors } from '../../src/activity-kit/interceptors';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import { taskQueueFor } from '../../src/catalog/task-queues';
import { planDependencies } from '../../src/catalog/dependency-plan';
import { InvalidOptionError } from '../../src/shared/errors';
import type { TestDb } from '../helpers/db';
import { waitFor } from '../helpers/dlq';
import { startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';

const email = (to: string) => ({ to, subject: 'Priority', body: 'Hello', userId: 'u-prio' });

// Priorities order a backlog only on a real server with the new matcher (test/helpers/env.ts).
describe('enqueue priority', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv)));
  after(() => stopJobsTestEnv({ env, testDb }));

  it('starts higher-priority jobs first from a backlog, on one worker with one slot (activities inherit the job\'s priority)', async () => {
    const taskQueue = uniqueId('prio');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    // The backlog builds while no worker runs: the low-priority jobs are enqueued first.
    const low = await Promise.all([1, 2, 3, 4].map((i) => jobs.enqueue('send-email', email(`low${i}@example.com`), { id: uniqueId('low'), priority: 5 })));
    const high = await Promise.all([1, 2, 3, 4].map((i) => jobs.enqueue('send-email', email(`high${i}@example.com`), { id: uniqueId('high'), priority: 1 })));
    const described = await high[0]!.handle.describe();
    assert.equal(described.raw.workflowExecutionInfo?.priority?.priorityKey, 1, 'the priority reaches Temporal as its priority key');

    const real = createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir(), email: { outboxDir: os.tmpdir(), from: 'jobs@test' } }));
    const order: string[] = [];
    const activities = {
      ...real,
      async sendEmail(payload: unknown) {
        order.push(currentJob().jobId);
        return real.sendEmail(payload);
      },
    };
    // Workflow tasks first, so every job's attempt waits in the backlog; then one worker slot for attempts.
    const emailQueue = taskQueueFor(taskQueue, catalog.definition('send-email')!);
    // send-email's step runs on the queue of the dependency it calls (smtp): the attempts wait there.
    const smtpQueue = planDependencies(taskQueue, catalog.definitions).find((d) => d.name === 'smtp')!.taskQueue;
    const workflows = await Worker.create({ connection: env.nativeConnection, workflowBundle: bundle, taskQueue: emailQueue });
    // The job interceptor tells each attempt its job, as a durable-jobs worker does.
    const slots = await Worker.create({ connection: env.nativeConnection, taskQueue: smtpQueue, activities, interceptors: { activity: [jobActivityInterceptors(catalog)] }, maxConcurrentActivityTaskExecutions: 1 });
    await workflows.runUntil(async () => {
      const all = [...low, ...high];
      // Scheduled in each job's history first, then handed to the matching service: wait for the queue's backlog.
      const backlog = () => activityBacklog(env, smtpQueue);
      assert.equal(await waitFor(backlog, (n) => n >= all.length, 60_000), all.length, 'every attempt waits in the backlog');
      await slots.runUntil(Promise.all(all.map((j) => j.handle.result())));
    });

    const rank = (id: string) => (id.startsWith('high') ? 'high' : 'low');
    assert.deepEqual(order.map(rank), ['high', 'high', 'high', 'high', 'low', 'low', 'low', 'low'], `start order: ${order.join(', ')}`);
  });

  it('refuses a priority outside 1..5 before anything is enqueued', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('prio-bad') });
    for (const priority of [0, 6, 2.5]) {
      await assert.rejects(jobs.enqueue('send-email', email('x@example.com'), { priority }), (err: unknown) => {
        assert.ok(err instanceof InvalidOptionError);
        assert.match(err.message, /priority: must be a whole number from 1 \(highest\) to 5 \(lowest\)/);
        return true;
      });
    }
  });
});

/** Activity tasks waiting on a task queue, as the server counts them. */
async function activityBacklog(env: TestWorkflowEnvironment, taskQueue: string): Promise<number> {
  const described = await env.client.workflowService.describeTaskQueue({
    namespace: env.namespace ?? 'default',
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    reportStats: true,
  });
  return Number(described.stats?.approximateBacklogCount ?? 0);
}
