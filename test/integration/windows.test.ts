import assert from 'node:assert/strict';
import os from 'node:os';
import { createActivities } from '../../src/activities';
import { debounceWorkflowId, dedupeWorkflowId } from '../../src/catalog/window-ids';
import { JobClient } from '../../src/client/job-client';
import { JobNotFoundError, JobNotStartedError } from '../../src/shared/errors';
import { catalog } from '../../src/jobs/catalog';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv } from '../helpers/env';
import { testActivityDeps } from '../helpers/worker';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Debounce and dedupe windows on a real dev server, with real clocks and enqueues that race the
// windows' closes.
describe('debounce and dedupe windows (real dev server)', function () {
  this.timeout(180_000);
  let jobsEnv: JobsTestEnv;

  before(async () => {
    jobsEnv = await startJobsTestEnv(startDevServerEnv);
  });
  after(async () => stopJobsTestEnv(jobsEnv ?? {}));

  async function setUp() {
    const { env, bundle, testDb } = jobsEnv;
    const taskQueue = uniqueId('tq-windows');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    return { env, worker, jobs: new JobClient(env.client, { catalog, taskQueue }), key: uniqueId('key') };
  }

  it('debounce: enqueues racing the closes of their windows each land in the window whose job ID they were given, and every window runs its job once', async () => {
    const { env, worker, jobs, key } = await setUp();
    await worker.runUntil(async () => {
      const given: string[] = [];
      // Every 0 to 300 ms, against a 400 ms delay and a 1.2 s cap: windows close while enqueues keep
      // coming. On until four windows have closed under the stream (about 6 s on a quiet machine; a
      // loaded one closes them later, as each new signal makes the close's workflow task retry).
      const end = Date.now() + 60_000;
      while (new Set(given).size < 5 && Date.now() < end) {
        given.push((await jobs.enqueue('noop', {}, { debounce: { key, delay: '400ms', maxDelay: '1200ms' } })).id);
        await sleep(Math.floor(Math.random() * 300));
      }
      const windows = [...new Set(given)];
      assert.ok(windows.length >= 4, `${given.length} enqueues fell into ${windows.length} windows`);
      for (const id of windows) {
        for (let i = 0; i < 100 && !(await env.client.workflow.getHandle(id).describe().then(() => true, () => false)); i++) await sleep(100);
        assert.deepEqual(await jobs.result(id), { attempt: 1 }, `job ${id} ran`);
        assert.equal((await jobs.get(id)).status, 'completed');
      }
      // Each window's run received exactly the enqueues whose result named it, and started its job once.
      const workflowId = debounceWorkflowId('noop', key);
      let started = 0;
      for (const id of windows) {
        const runId = id.slice(-36);
        const events = (await env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
        const signals = events.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
        assert.equal(signals, given.filter((g) => g === id).length, `window ${runId} holds the enqueues given its ID`);
        const next = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
        assert.ok(next, `window ${runId} closed by handing its job to the next run`);
        const nextEvents = (await env.client.workflow.getHandle(workflowId, next).fetchHistory()).events ?? [];
        started += nextEvents.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'durable-jobs.startWindowJob').length;
      }
      assert.equal(started, windows.length, 'one start per window');
    });
  });

  it('dedupe: concurrent enqueues of one key open one window and one job; within the TTL, after the job finished, the key returns it; after the TTL it runs again', async () => {
    const { env, worker, jobs, key } = await setUp();
    await worker.runUntil(async () => {
      const dedupe = { key, ttl: '4s' };
      const results = await Promise.all(Array.from({ length: 10 }, () => jobs.enqueue('noop', {}, { dedupe })));
      assert.equal(results.filter((r) => !r.existed).length, 1, 'one enqueue opened the window');
      assert.equal(new Set(results.map((r) => r.id)).size, 1, 'all were given its job');
      const [{ id }] = results as [(typeof results)[number]];
      assert.deepEqual(await jobs.result(id), { attempt: 1 });
      const again = await jobs.enqueue('noop', {}, { dedupe });
      assert.deepEqual({ id: again.id, existed: again.existed }, { id, existed: true });
      await env.client.workflow.getHandle(dedupeWorkflowId('noop', key)).result();
      const after = await jobs.enqueue('noop', {}, { dedupe });
      assert.equal(after.existed, false);
      assert.notEqual(after.id, id);
      assert.deepEqual(await jobs.result(after.id), { attempt: 1 });
      assert.equal((await jobs.get(id)).status, 'completed');
    });
  });

  it('cancelling a debounced job whose window is open says it has not started and when its window closes; once started it cancels', async () => {
    const { worker, jobs, key } = await setUp();
    await worker.runUntil(async () => {
      const { id } = await jobs.enqueue('noop', { failAttempts: 3 }, { debounce: { key, delay: '2s' } });
      await assert.rejects(jobs.cancel(id), (err: unknown) => {
        assert.ok(err instanceof JobNotStartedError, String(err));
        assert.equal(err.type, 'jobs:job-not-started');
        assert.match(err.message, /has not started: its debounce window is still collecting enqueues \(it closes at \d{4}-\d\d-\d\dT/);
        return true;
      });
      for (let i = 0; i < 100 && (await jobs.get(id)).status === 'scheduled'; i++) await sleep(100);
      await jobs.cancel(id);
      for (let i = 0; i < 100 && (await jobs.get(id)).status !== 'cancelled'; i++) await sleep(100);
      assert.equal((await jobs.get(id)).status, 'cancelled');
    });
  });

  it('refuses to cancel an ID that names no job and no open window, as not found', async () => {
    const { worker, jobs, key } = await setUp();
    await worker.runUntil(() => assert.rejects(jobs.cancel(`noop:debounce:${key}:00000000-0000-4000-8000-000000000000`), (err: unknown) => err instanceof JobNotFoundError));
  });

  it('a debounced and a deduplicated job run with the fairness key and weight their enqueue gave', async () => {
    const { worker, jobs, key } = await setUp();
    await worker.runUntil(async () => {
      const debounced = await jobs.enqueue('noop', {}, { debounce: { key, delay: '300ms' }, fairnessKey: 'tenant-a', fairnessWeight: 2 });
      const deduped = await jobs.enqueue('noop', {}, { dedupe: { key, ttl: '1m' }, fairnessKey: 'tenant-b' });
      for (let i = 0; i < 100 && (await jobs.get(debounced.id)).status !== 'completed'; i++) await sleep(100);
      assert.deepEqual((await jobs.get(debounced.id)).fairness, { key: 'tenant-a', weight: 2 });
      await jobs.result(deduped.id);
      assert.deepEqual((await jobs.get(deduped.id)).fairness, { key: 'tenant-b' });
    });
  });
});
