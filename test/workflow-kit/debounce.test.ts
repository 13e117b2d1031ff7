import assert from 'node:assert/strict';
import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { defineCatalog } from '../../src/catalog/catalog';
import { debounceWorkflowId } from '../../src/catalog/window-ids';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import { noopJob, type NoopPayload } from '../../src/jobs/noop';
import { noopPayload } from '../../src/jobs/payloads/noop';
import { type TestDb } from '../helpers/db';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { testActivityDeps } from '../helpers/worker';
import { InvalidOptionError } from '../../src/shared/errors';

// Debounce windows on the time-skipping server: env.sleep moves the test's clock, so a window's
// timing is checked in server time, to the second.
describe('debounce windows (time-skipping)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  async function setUp(options: { catalog?: typeof catalog } = {}) {
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(env.client, { catalog: options.catalog ?? catalog, taskQueue });
    const activities = createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }));
    const worker = await createTestWorker(env, bundle, { taskQueue, activities, catalog: options.catalog });
    return { jobs, worker, key: uniqueId('key') };
  }

  /**
   * When the job's workflow started, in the server's (skipped) time. Waits (in real time, the test
   * clock stands still meanwhile) for the worker to have started it: env.sleep returns once the
   * clock has moved, which may be before the worker has run the window's close and start.
   */
  async function startedAt(jobs: JobClient, id: string): Promise<number> {
    for (let tries = 0; ; tries++) {
      try {
        return (await jobs.temporal.workflow.getHandle(id).describe()).startTime.getTime();
      } catch (err) {
        if (tries >= 100) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /**
   * The jobs the key's debouncer started (one startWindowJob activity per window), read from every
   * run of the chains that the windows of `ids` belong to (a chain that found no more enqueues
   * completed; the next enqueue started another).
   */
  async function windowsStarted(jobs: JobClient, key: string, ids: string[]): Promise<string[]> {
    const started: string[] = [];
    const workflowId = debounceWorkflowId('noop', key);
    const runs = [...new Set(ids.map((id) => id.slice(-36)))];
    for (let i = 0; i < runs.length; i++) {
      const events = (await jobs.temporal.workflow.getHandle(workflowId, runs[i]).fetchHistory()).events ?? [];
      for (const e of events) {
        const scheduled = e.activityTaskScheduledEventAttributes;
        if (scheduled?.activityType?.name === 'durable-jobs.startWindowJob') started.push((env.client.options.loadedDataConverter.payloadConverter.fromPayload(scheduled.input!.payloads![0]!) as { id: string }).id);
      }
      const next = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (next && !runs.includes(next)) runs.splice(i + 1, 0, next);
    }
    return started;
  }

  it('collapses enqueues that come within the delay into one job, started delay after the last, with the last payload', async () => {
    const { jobs, worker, key } = await setUp();
    await worker.runUntil(async () => {
      const first = await jobs.enqueue('noop', { failAttempts: 1 }, { debounce: { key, delay: '10s' } });
      assert.match(first.id, new RegExp(`^noop:debounce:${key}:[0-9a-f-]{36}$`));
      assert.equal(first.existed, false);
      await env.sleep('4s');
      const second = await jobs.enqueue('noop', { failAttempts: 2 }, { debounce: { key, delay: '10s' } });
      await env.sleep('4s');
      const lastAt = await env.currentTimeMs();
      const third = await jobs.enqueue('noop', { failAttempts: 0 }, { debounce: { key, delay: '10s' } });
      assert.equal(second.id, first.id);
      assert.equal(third.id, first.id);

      const pending = await jobs.get(first.id);
      assert.equal(pending.status, 'scheduled');
      assert.deepEqual(pending.payload, { failAttempts: 0 });
      assert.equal(pending.debounce?.enqueues, 3);
      assert.equal(pending.attempts, 0);

      // Slept to the deadline exactly: past it, the test server's clock may run on while the worker closes the window.
      await env.sleep('9s');
      await assert.rejects(jobs.temporal.workflow.getHandle(first.id).describe(), /not found/i, 'not started before its delay');
      await env.sleep('1s');
      const delayMs = (await startedAt(jobs, first.id)) - lastAt;
      const result = await jobs.result(first.id);
      assert.deepEqual(result, { attempt: 1 }, 'ran with the last payload (failAttempts: 0)');
      const record = await jobs.get(first.id);
      assert.equal(record.status, 'completed');
      assert.deepEqual(record.payload, { failAttempts: 0 });
      assert.ok(delayMs >= 10_000 && delayMs < 12_000, `started ${delayMs} ms after the last enqueue`);
      assert.deepEqual(await windowsStarted(jobs, key, [first.id]), [first.id], 'one job for the three enqueues');
    });
  });

  it('starts the job maxDelay after the first enqueue however often they come, and a later enqueue opens a window of its own', async () => {
    const { jobs, worker, key } = await setUp();
    await worker.runUntil(async () => {
      const debounce = { key, delay: '5s', maxDelay: '10s' };
      const firstAt = await env.currentTimeMs();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        if (i > 0) await env.sleep('3s');
        ids.push((await jobs.enqueue('noop', {}, { debounce })).id);
      }
      // Enqueued at 0, 3, 6, 9 s: one window, closed at 10 s by maxDelay though the last came 1 s before.
      assert.equal(new Set(ids).size, 1);
      await env.sleep('1s');
      const firstStart = (await startedAt(jobs, ids[0]!)) - firstAt;
      assert.ok(firstStart >= 10_000 && firstStart < 12_000, `the first window's job started ${firstStart} ms after its first enqueue`);
      // At 12 s: the window has fired, so this enqueue opens the next one. (Results are awaited last:
      // awaiting one lets the test server skip time, beyond any timer, when none is due.)
      await env.sleep('2s');
      ids.push((await jobs.enqueue('noop', {}, { debounce })).id);
      assert.notEqual(ids[4], ids[0]);
      await env.sleep('5s');
      const secondStart = (await startedAt(jobs, ids[4]!)) - firstAt;
      assert.deepEqual(await jobs.result(ids[0]!), { attempt: 1 });
      assert.deepEqual(await jobs.result(ids[4]!), { attempt: 1 });
      assert.ok(secondStart >= 17_000 && secondStart < 19_000, `the second window's job started ${secondStart} ms after the first enqueue`);
      assert.deepEqual(await windowsStarted(jobs, key, ids), [ids[0], ids[4]]);
    });
  });

  it('runs again after its window fired: an enqueue once the job ran starts a new window and job', async () => {
    const { jobs, worker, key } = await setUp();
    await worker.runUntil(async () => {
      const first = await jobs.enqueue('noop', {}, { debounce: { key, delay: '2s' } });
      await env.sleep('3s');
      await startedAt(jobs, first.id);
      assert.deepEqual(await jobs.result(first.id), { attempt: 1 });
      // The debouncer completes once no window of its own came; the next enqueue starts it anew.
      await env.sleep('5s');
      const again = await jobs.enqueue('noop', { failAttempts: 1 }, { debounce: { key, delay: '2s' } });
      assert.notEqual(again.id, first.id);
      await env.sleep('3s');
      await startedAt(jobs, again.id);
      assert.deepEqual(await jobs.result(again.id), { attempt: 2 });
      assert.equal((await jobs.get(first.id)).status, 'completed');
    });
  });

  it("folds a window's payloads with the type's declared merge, validated before the job starts", async () => {
    const merging = defineCatalog({
      jobs: [{ ...noopJob, debounce: { merge: (a: NoopPayload, b: NoopPayload) => ({ failAttempts: a.failAttempts + b.failAttempts }) } }],
      payloads: { noop: noopPayload },
    });
    const { jobs, worker, key } = await setUp({ catalog: merging as unknown as typeof catalog });
    await worker.runUntil(async () => {
      const ids = [];
      for (const failAttempts of [1, 0, 1]) ids.push((await jobs.enqueue('noop', { failAttempts }, { debounce: { key, delay: '5s' } })).id);
      assert.equal(new Set(ids).size, 1);
      await env.sleep('6s');
      await startedAt(jobs, ids[0]!);
      assert.deepEqual((await jobs.get(ids[0]!)).payload, { failAttempts: 2 });
      assert.deepEqual(await jobs.result(ids[0]!), { attempt: 3 });

      // A merge folding past the schema (failAttempts at most 3) starts nothing, says so, and the next window still runs.
      const bad = [];
      for (const failAttempts of [2, 2]) bad.push((await jobs.enqueue('noop', { failAttempts }, { debounce: { key, delay: '5s' } })).id);
      await env.sleep('6s');
      const next = await jobs.enqueue('noop', { failAttempts: 0 }, { debounce: { key, delay: '5s' } });
      await env.sleep('6s');
      await startedAt(jobs, next.id);
      assert.deepEqual(await jobs.result(next.id), { attempt: 1 });
      await assert.rejects(jobs.temporal.workflow.getHandle(bad[0]!).describe(), /not found/i);
      const failed = await jobs.get(bad[0]!);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error?.type, 'jobs:invalid-payload');
      assert.match(failed.error?.message ?? '', /could not start.*failAttempts/);
    });
  });

  it('refuses bad options before anything starts, naming each field', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
    const key = uniqueId('key');
    await assert.rejects(
      jobs.enqueue('noop', {}, { debounce: { key: '', delay: '0s', maxDelay: '-1s' } }),
      (err: unknown) =>
        err instanceof InvalidOptionError &&
        /debounce\.key: must be 1 to \d+ characters.*an empty key/.test(err.message) &&
        /debounce\.delay: must be a duration of more than 0/.test(err.message) &&
        /debounce\.maxDelay: must be a duration of more than 0/.test(err.message),
    );
    await assert.rejects(jobs.enqueue('noop', {}, { debounce: { key, delay: '10s', maxDelay: '5s' } }), /debounce\.maxDelay: must be at least debounce\.delay \(10000 ms\), got 5000 ms/);
    await assert.rejects(jobs.enqueue('noop', {}, { debounce: { key: 'k'.repeat(200), delay: '1s' } }), /debounce\.key: must be 1 to 149 characters.*got 200 characters/);
    await assert.rejects(jobs.enqueue('noop', {}, { debounce: { key: 'a b', delay: '1s' } }), /debounce\.key/);
    await assert.rejects(jobs.enqueue('noop', {}, { id: 'x', delay: '1s', debounce: { key, delay: '1s' } }), (err: unknown) => /id: cannot be combined with debounce/.test(String(err)) && /delay: cannot be combined with debounce/.test(String(err)));
    await assert.rejects(jobs.enqueue('noop', { failAttempts: 9 }, { debounce: { key, delay: '1s' } }), /jobs:invalid-payload/);
    await assert.rejects(jobs.temporal.workflow.getHandle(debounceWorkflowId('noop', key)).describe(), /not found/i, 'no debouncer was started');
  });
});
