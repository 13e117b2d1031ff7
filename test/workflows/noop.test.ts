import assert from 'node:assert/strict';
import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { JobClient } from '../../src/client/job-client';
import type { NoopResult } from '../../src/jobs/noop';
import { InvalidPayloadError } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

// The noop job runs its step as a local activity (noopJob.activity = 'local'). These tests check
// that the lever keeps what the definition declares: the retry schedule, via nextRetryDelay.
describe('noop job, a local activity (time-skipping)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  /** The real activities, recording when each noop attempt starts, in test time: a local retry waits in a workflow timer. */
  function recordingActivities(taskQueue: string, startedAt: number[]) {
    const real = createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }));
    return {
      ...real,
      runNoop: async (input: Parameters<typeof real.runNoop>[0]) => {
        startedAt.push(await env.currentTimeMs());
        return real.runNoop(input);
      },
    };
  }

  it('completes in one attempt, with no activity task in its history', async () => {
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const startedAt: number[] = [];
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: recordingActivities(taskQueue, startedAt) });
    const { id, handle } = await jobs.enqueue('noop', {}, { id: uniqueId('noop') });
    const result = (await worker.runUntil(handle.result())) as NoopResult;
    assert.deepEqual(result, { attempt: 1 });
    assert.equal(startedAt.length, 1);
    const events = (await handle.fetchHistory()).events ?? [];
    assert.ok(events.some((e) => e.markerRecordedEventAttributes), 'a local activity leaves a marker');
    assert.ok(!events.some((e) => e.activityTaskScheduledEventAttributes), 'no regular activity was scheduled');
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 1);
    assert.equal(record.maxAttempts, 4);
  });

  it('retries a failed attempt after the delays its schedule declares (nextRetryDelay), then succeeds', async () => {
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const startedAt: number[] = [];
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: recordingActivities(taskQueue, startedAt) });
    const { id, handle } = await jobs.enqueue('noop', { failAttempts: 2 }, { id: uniqueId('noop') });
    const result = (await worker.runUntil(handle.result())) as NoopResult;
    assert.deepEqual(result, { attempt: 3 });
    assert.equal(startedAt.length, 3);
    // The schedule is 1s, 5s, 30s. The policy's own fallback backoff (1s, doubling) would wait 2s
    // before the third attempt, so a second wait of 5s shows nextRetryDelay was honoured. Lower
    // bounds only: how fast it runs is the bench's business.
    assert.ok(startedAt[1]! - startedAt[0]! >= 1000 - 50, `first wait ${startedAt[1]! - startedAt[0]!} ms`);
    assert.ok(startedAt[2]! - startedAt[1]! >= 5000 - 50, `second wait ${startedAt[2]! - startedAt[1]!} ms`);
    assert.equal((await jobs.get(id)).attempts, 3, 'the job record counts attempts from the local activity marker');
  });

  it('is retrying, with its last failure, while it waits out a delay, and reports its attempts and that failure when it is cancelled then, though Temporal keeps no pending record of a local activity', async () => {
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const startedAt: number[] = [];
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: recordingActivities(taskQueue, startedAt) });
    const { id, handle } = await jobs.enqueue('noop', { failAttempts: 3 }, { id: uniqueId('noop-cancel') });
    await worker.runUntil(async () => {
      // The schedule is 1s, 5s, 30s: after the second failure the job waits 5s (of real time: nothing awaits its result).
      let waiting = await jobs.get(id);
      for (const deadline = Date.now() + 30_000; !(startedAt.length === 2 && waiting.attempts === 2 && waiting.status === 'retrying'); waiting = await jobs.get(id)) {
        if (Date.now() > deadline) throw new Error(`the second attempt never failed into a wait (${startedAt.length} attempts, ${waiting.status})`);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(waiting.error?.type, 'noop:injected-failure', 'while it waits, the record says why the last attempt failed');
      await jobs.cancel(id);
      await handle.result().catch(() => undefined);
    });
    const record = await jobs.get(id);
    assert.equal(record.status, 'cancelled');
    assert.equal(startedAt.length, 2);
    assert.equal(record.attempts, 2, 'the attempts it made, not 0');
    assert.equal(record.error?.type, 'noop:injected-failure', 'and why the last one failed');
  });

  it('rejects an invalid payload before anything is enqueued', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
    await assert.rejects(jobs.enqueue('noop', { failAttempts: 9 }), InvalidPayloadError);
  });
});
