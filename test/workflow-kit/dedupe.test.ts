import assert from 'node:assert/strict';
import os from 'node:os';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { dedupeWorkflowId } from '../../src/catalog/window-ids';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import { InvalidOptionError } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { testActivityDeps } from '../helpers/worker';

describe('dedupe windows (time-skipping)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  /**
   * A client that never lets the test server skip time: the time-skipping client's `result()`
   * skips to the next timer (the window's TTL among them) whenever the server is idle, even for a
   * job that has finished. The clock runs at its normal rate meanwhile; env.sleep skips it.
   */
  function steadyClient(): Client {
    return new Client({ connection: env.client.connection, namespace: env.namespace });
  }

  async function setUp() {
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(steadyClient(), { catalog, taskQueue });
    const activities = createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }));
    const worker = await createTestWorker(env, bundle, { taskQueue, activities });
    return { jobs, worker, key: uniqueId('key') };
  }

  it('returns the first job to a second enqueue of the key within the TTL, even after it completed, whatever its payload', async () => {
    const { jobs, worker, key } = await setUp();
    await worker.runUntil(async () => {
      const first = await jobs.enqueue('noop', { failAttempts: 1 }, { dedupe: { key, ttl: '1h' } });
      assert.match(first.id, new RegExp(`^noop:dedupe:${key}:[0-9a-f-]{36}$`));
      assert.equal(first.existed, false);
      assert.deepEqual(await jobs.result(first.id), { attempt: 2 });
      await env.sleep('30m');
      const second = await jobs.enqueue('noop', { failAttempts: 0 }, { dedupe: { key, ttl: '1h' } });
      assert.deepEqual({ id: second.id, existed: second.existed }, { id: first.id, existed: true });
      const record = await jobs.get(second.id);
      assert.equal(record.status, 'completed');
      assert.deepEqual(record.payload, { failAttempts: 1 }, 'nothing new ran with the second payload');
    });
  });

  it('runs again once the TTL is over: the key opens a new window and job', async () => {
    const { jobs, worker, key } = await setUp();
    await worker.runUntil(async () => {
      const first = await jobs.enqueue('noop', {}, { dedupe: { key, ttl: '10m' } });
      await jobs.result(first.id);
      const window = jobs.temporal.workflow.getHandle(dedupeWorkflowId('noop', key));
      await env.sleep('9m');
      assert.equal((await window.describe()).status.name, 'RUNNING', 'open before its TTL');
      await env.sleep('1m');
      assert.deepEqual(await window.result(), { jobId: first.id }, 'the window closes at its TTL');
      const again = await jobs.enqueue('noop', { failAttempts: 1 }, { dedupe: { key, ttl: '10m' } });
      assert.equal(again.existed, false);
      assert.notEqual(again.id, first.id);
      assert.deepEqual(await again.handle.result(), { attempt: 2 });
      const closedAt = (await window.describe()).startTime.getTime() - (await jobs.temporal.workflow.getHandle(first.id).describe()).startTime.getTime();
      assert.ok(closedAt >= 10 * 60_000, `the second window opened ${closedAt} ms after the first job, not before the TTL`);
    });
  });

  it('starts the job at the enqueue, with no worker running, and the window starting it too is a no-op', async () => {
    const { jobs, worker, key } = await setUp();
    const first = await jobs.enqueue('noop', {}, { dedupe: { key, ttl: '1h' } });
    const described = await jobs.temporal.workflow.getHandle(first.id).describe();
    assert.equal(described.status.name, 'RUNNING');
    const second = await jobs.enqueue('noop', {}, { dedupe: { key, ttl: '1h' } });
    assert.deepEqual({ id: second.id, existed: second.existed }, { id: first.id, existed: true });
    await worker.runUntil(async () => {
      assert.deepEqual(await jobs.result(first.id), { attempt: 1 });
      // The window's own start found the job there.
      const events = (await jobs.temporal.workflow.getHandle(dedupeWorkflowId('noop', key)).fetchHistory()).events ?? [];
      for (let i = 0; i < 50 && !events.some((e) => e.activityTaskCompletedEventAttributes); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        events.splice(0, events.length, ...((await jobs.temporal.workflow.getHandle(dedupeWorkflowId('noop', key)).fetchHistory()).events ?? []));
      }
      const startDone = events.find((e) => e.activityTaskCompletedEventAttributes)?.activityTaskCompletedEventAttributes;
      assert.deepEqual(env.client.options.loadedDataConverter.payloadConverter.fromPayload(startDone!.result!.payloads![0]!), { started: false });
    });
  });

  it('refuses bad options before anything starts, naming each field', async () => {
    const jobs = new JobClient(steadyClient(), { catalog, taskQueue: uniqueId('tq') });
    const key = uniqueId('key');
    await assert.rejects(
      jobs.enqueue('noop', {}, { dedupe: { key: '', ttl: '0s' } }),
      (err: unknown) => err instanceof InvalidOptionError && /dedupe\.key: must be 1 to \d+ characters.*empty key/.test(err.message) && /dedupe\.ttl: must be a duration of more than 0/.test(err.message),
    );
    await assert.rejects(jobs.enqueue('noop', {}, { id: 'x', dedupe: { key, ttl: '1h' } }), /id: cannot be combined with dedupe/);
    await assert.rejects(jobs.enqueue('noop', {}, { dedupe: { key, ttl: '1h' }, debounce: { key, delay: '1s' } }), /dedupe: cannot be combined with debounce/);
    await assert.rejects(jobs.enqueue('noop', { failAttempts: 9 }, { dedupe: { key, ttl: '1h' } }), /jobs:invalid-payload/);
    await assert.rejects(jobs.temporal.workflow.getHandle(dedupeWorkflowId('noop', key)).describe(), /not found/i, 'no window was opened');
  });
});
