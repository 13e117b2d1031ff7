import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient, type EnqueueOptions, type EnqueueResult } from '../../src/client/job-client';
import { taskQueueFor } from '../../src/catalog/task-queues';
import { bundleJobWorkflows, createJobTestWorker } from '../../src/testing';
import { jobStats } from '../../src/jobctl/job-stats';
import { readRatePerKey } from '../../src/worker/apply-rate-per-key';
import { waitFor } from '../helpers/dlq';
import { startDevServerEnv, uniqueId } from '../helpers/env';
import { createTenantActivities, ratesPerKey, type StepStart } from '../fixtures/fairness/activities';
import { fairnessCatalog } from '../fixtures/fairness/catalog';
import { limitedRatePerKey, limitedTaskJob, tenantTaskJob, type TenantTaskPayload } from '../fixtures/fairness/jobs';

type FixtureClient = JobClient<(typeof fairnessCatalog)['payloads']>;

/** Enqueues jobs 25 at a time, in order. */
async function enqueueAll(jobs: FixtureClient, type: 'tenant-task' | 'limited-task', payloads: TenantTaskPayload[], options: EnqueueOptions = {}): Promise<EnqueueResult[]> {
  const results: EnqueueResult[] = [];
  for (let i = 0; i < payloads.length; i += 25) results.push(...(await Promise.all(payloads.slice(i, i + 25).map((p) => jobs.enqueue(type, p, options)))));
  return results;
}

const times = (n: number, payload: TenantTaskPayload) => Array.from({ length: n }, () => ({ ...payload }));

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

// Fairness and per-key rates are the server's new matcher's (matching.enableFairness, on in the
// test dev server: src/shared/dev-server-config.ts); the time-skipping server has neither.
describe('fairness between tenants and rate per key (real dev server)', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;

  before(async () => {
    env = await startDevServerEnv();
    bundle = await bundleJobWorkflows(require.resolve('../fixtures/fairness/workflows'));
  });
  after(() => env?.teardown());

  it("starts a small tenant's jobs within seconds while another tenant's backlog of 500 waits, on one worker with 2 slots; every attempt runs with its job's fairness key", async () => {
    const taskQueue = uniqueId('fair');
    const jobs: FixtureClient = new JobClient(env.client, { catalog: fairnessCatalog, taskQueue });
    const starts: StepStart[] = [];
    const worker = await createJobTestWorker(env, bundle, { catalog: fairnessCatalog, taskQueue, activities: createTenantActivities(starts), limits: { concurrency: 2, workflowConcurrency: 2 } });
    const { bEnqueuedAt, aStartedBeforeB, b } = await worker.runUntil(async () => {
      const a = await enqueueAll(jobs, 'tenant-task', times(500, { tenant: 'tenant-a', ms: 100 }));
      const aStartedBeforeB = starts.length;
      const bEnqueuedAt = Date.now();
      const b = await enqueueAll(jobs, 'tenant-task', times(10, { tenant: 'tenant-b', ms: 100 }));
      await Promise.all([...a, ...b].map((j) => j.handle.result()));
      return { bEnqueuedAt, aStartedBeforeB, b };
    });

    const bStarts = starts.filter((s) => s.tenant === 'tenant-b');
    const lastB = Math.max(...bStarts.map((s) => s.at));
    const aBeforeLastB = starts.filter((s) => s.tenant === 'tenant-a' && s.at <= lastB).length;
    const latencies = bStarts.map((s) => s.at - bEnqueuedAt).sort((x, y) => x - y);
    console.log(`      B's start latency after its enqueue: first ${latencies[0]} ms, median ${latencies[4]} ms, last ${latencies[9]} ms; A had started ${aStartedBeforeB} of 500 when B was enqueued, ${aBeforeLastB} when B's last job started`);
    assert.equal(bStarts.length, 10, 'each of B\'s jobs started once');
    assert.equal(starts.length, 510, 'every job started once');
    assert.ok(latencies[9]! < 5_000, `B's last job started ${latencies[9]} ms after B's enqueue, not within 5 s`);
    assert.ok(aBeforeLastB < 400, `B's jobs waited behind A's backlog: ${aBeforeLastB} of A's 500 had started before B's last one`);
    assert.deepEqual(new Set(starts.map((s) => `${s.tenant}=${s.fairnessKey}`)), new Set(['tenant-a=tenant-a', 'tenant-b=tenant-b']), 'every attempt inherits its job\'s fairness key');
    // The workflow runs with it too, and the job record shows it from there.
    assert.equal(await b[0]!.handle.result(), 'tenant-b', "the workflow's own priority carries the key");
    assert.deepEqual((await jobs.get(b[0]!.id)).fairness, { key: 'tenant-b' });
  });

  it('dispatches a weight-3 key three times as often as a weight-1 key while both wait (within 20%)', async () => {
    const taskQueue = uniqueId('weights');
    const jobs: FixtureClient = new JobClient(env.client, { catalog: fairnessCatalog, taskQueue });
    const queue = taskQueueFor(taskQueue, tenantTaskJob);
    const starts: StepStart[] = [];
    // Workflow tasks first, so that every attempt waits in the backlog; then 2 slots for attempts.
    const workflows = await Worker.create({ connection: env.nativeConnection, workflowBundle: bundle, taskQueue: queue });
    const slots = await Worker.create({ connection: env.nativeConnection, taskQueue: queue, activities: createTenantActivities(starts), maxConcurrentActivityTaskExecutions: 2 });
    const perKey = 200;
    await workflows.runUntil(async () => {
      const [heavy, light] = await Promise.all([
        enqueueAll(jobs, 'tenant-task', times(perKey, { tenant: 'heavy', weight: 3, ms: 10 })),
        enqueueAll(jobs, 'tenant-task', times(perKey, { tenant: 'light', ms: 10 }), { fairnessWeight: 1 }),
      ]);
      const backlog = await waitFor(() => activityBacklog(env, queue), (n) => n >= 2 * perKey, 120_000);
      assert.equal(backlog, 2 * perKey, 'every attempt waits in the backlog');
      await slots.runUntil(Promise.all([...heavy!, ...light!].map((j) => j.handle.result())));
    });

    // The window: the first 200 starts, while both keys still wait (3:1 gives heavy 150 of its 200).
    const window = starts.sort((x, y) => x.at - y.at).slice(0, 200);
    const heavyCount = window.filter((s) => s.tenant === 'heavy').length;
    const lightCount = window.length - heavyCount;
    const ratio = heavyCount / lightCount;
    console.log(`      first 200 starts: heavy (weight 3) ${heavyCount}, light (weight 1) ${lightCount}: ratio ${ratio.toFixed(2)}`);
    assert.ok(Math.abs(ratio - 3) <= 0.6, `dispatch ratio ${ratio.toFixed(2)} is not within 20% of 3`);
    assert.equal(starts.length, 2 * perKey, 'every job started once');
    assert.ok(starts.filter((s) => s.tenant === 'heavy').every((s) => s.fairnessWeight === 3), 'the weight reaches every attempt');
  });

  it(`holds each key to limits.ratePerKey (${limitedRatePerKey}/s measured over 20 s: at most 10% over; not held to the queue's rate shared by the keys), the other key unaffected`, async () => {
    const taskQueue = uniqueId('rate');
    const jobs: FixtureClient = new JobClient(env.client, { catalog: fairnessCatalog, taskQueue });
    const starts: StepStart[] = [];
    // Slots to spare: the rate is the only limit.
    const worker = await createJobTestWorker(env, bundle, { catalog: fairnessCatalog, taskQueue, activities: createTenantActivities(starts), limits: { concurrency: 20 } });
    assert.equal((await readRatePerKey(env.client, taskQueueFor(taskQueue, limitedTaskJob))).ratePerKey, limitedRatePerKey, 'the worker set the rate on the queue');
    const rated = (await jobStats(jobs)).rateLimited.find((r) => r.type === 'limited-task');
    assert.deepEqual(rated, { type: 'limited-task', taskQueue: taskQueueFor(taskQueue, limitedTaskJob), declared: limitedRatePerKey, ratePerKey: limitedRatePerKey }, 'jobctl stats shows the rate the server holds');
    const perKey = 110;
    await worker.runUntil(async () => {
      const [x, y] = await Promise.all([
        enqueueAll(jobs, 'limited-task', times(perKey, { tenant: 'key-x', ms: 10 })),
        enqueueAll(jobs, 'limited-task', times(perKey, { tenant: 'key-y', ms: 10 })),
      ]);
      await Promise.all([...x!, ...y!].map((j) => j.handle.result()));
    });

    const rates = ratesPerKey(starts, ['key-x', 'key-y']);
    console.log(`      starts per second over 20 s: ${rates.map((r) => `${r.key} ${r.rate.toFixed(2)}`).join(', ')} (limit ${limitedRatePerKey} per key)`);
    for (const { key, rate, total } of rates) {
      assert.equal(total, perKey, `every ${key} job started once`);
      // The limit is a ceiling: 10% over it is the server letting too much through. Below it, a
      // loaded machine is slow on its own (two suites side by side on 2 cores ran 3.10 and 3.50/s
      // for 4/s), so the floor is not a speed: it catches the limit held stricter than declared,
      // as the queue's rate shared by both keys (2/s each) or halved, which is 50% or less.
      assert.ok(rate <= limitedRatePerKey * 1.1, `${key}: ${rate.toFixed(2)} starts/s is more than 10% over ${limitedRatePerKey}`);
      assert.ok(rate > limitedRatePerKey * 0.6, `${key}: ${rate.toFixed(2)} starts/s is 60% of ${limitedRatePerKey} or less: held stricter than declared (shared by the keys?)`);
    }
  });

  it('keeps the fairness key given at enqueue through a redrive, and a schedule runs with the key its type derives', async () => {
    const taskQueue = uniqueId('fair-keep');
    const jobs: FixtureClient = new JobClient(env.client, { catalog: fairnessCatalog, taskQueue });
    const starts: StepStart[] = [];
    const worker = await createJobTestWorker(env, bundle, { catalog: fairnessCatalog, taskQueue, activities: createTenantActivities(starts) });
    await worker.runUntil(async () => {
      const { id, handle } = await jobs.enqueue('tenant-task', { tenant: 'derived', ms: 0, fail: true }, { fairnessKey: 'override-key', fairnessWeight: 2, priority: 2 });
      await assert.rejects(handle.result());
      assert.deepEqual((await jobs.get(id)).fairness, { key: 'override-key', weight: 2 });
      await waitFor(() => jobs.deadLetters.list({ type: 'tenant-task' }), (entries) => entries.some((e) => e.id === id));
      await jobs.deadLetters.redrive(id, { patch: { fail: false }, reason: 'fairness test' });
      await waitFor(() => jobs.get(id), (r) => r.status === 'completed', 30_000);
      const priority = (await jobs.temporal.workflow.getHandle(id).describe()).raw.workflowExecutionInfo?.priority;
      assert.deepEqual({ ...priority }, { priorityKey: 2, fairnessKey: 'override-key', fairnessWeight: 2 }, 'the redrive keeps the priority and fairness it failed with');
      assert.deepEqual(starts.filter((s) => s.jobId === id).map((s) => s.fairnessKey), ['override-key', 'override-key']);

      const { id: scheduleId } = await jobs.schedules.create('tenant-task', { tenant: 'scheduled', ms: 0 }, { every: '1h', paused: true });
      try {
        await jobs.schedules.trigger(scheduleId);
        const runs = await waitFor(() => jobs.schedules.get(scheduleId), (s) => s.recentJobs.length > 0, 30_000);
        const run = runs.recentJobs[0]!;
        assert.equal(await jobs.temporal.workflow.getHandle(run).result(), 'scheduled', "the scheduled run's workflow carries the derived key");
        assert.deepEqual((await jobs.get(run)).fairness, { key: 'scheduled' });
      } finally {
        await jobs.schedules.delete(scheduleId);
      }
    });
  });
});
