import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import type { SyncDataResult } from '../../src/jobs/sync-data';
import { ErrorType } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { deadLetterEntries } from '../helpers/dlq';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv } from '../helpers/env';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';
import { requestStopSignal } from '../../src/workflows/sync-data';

/** Every activity attempt a job's history records (its started events), as [activity type, attempt]. */
async function attemptsOf(env: TestWorkflowEnvironment, id: string): Promise<[string, number][]> {
  const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const typeOf = new Map(events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => [Number(e.eventId), e.activityTaskScheduledEventAttributes!.activityType!.name!]));
  return events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => [typeOf.get(Number(e.activityTaskStartedEventAttributes!.scheduledEventId))!, e.activityTaskStartedEventAttributes!.attempt!]);
}

// A worker without a setting a step needs (sync-data without SYNC_SOURCE_URL, as `npm start` runs
// it) makes the job wait for one that has it; no attempt of the job pays for the missing setting.
describe('a step that needs a missing setting waits for it, costing no attempt (time-skipping)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let http: TestSyncSource;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
    http = await startSyncSource({ clock: () => env.currentTimeMs() });
  });
  after(async () => {
    await http?.close();
    await stopJobsTestEnv({ env, testDb });
  });

  async function worker(taskQueue: string, syncSourceUrl?: string) {
    const deps = testActivityDeps(testDb.db, { reportsDir: await mkdtemp(path.join(os.tmpdir(), 'config-wait-')), syncSourceUrl });
    return createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps) });
  }
  async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('a sync-data job on a worker without SYNC_SOURCE_URL waits for hours without using up its 8 attempts, then completes on a worker that has it', async () => {
    const taskQueue = uniqueId('tq-config');
    const source = uniqueId('src').slice(0, 40);
    http.setRecords(source, makeRecords(5));
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const { id, handle } = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id: uniqueId('sync-wait') });

    // One worker throughout: setting its SYNC_SOURCE_URL stands in for restarting it with the
    // setting (the dev-server test below restarts a real one).
    const deps = testActivityDeps(testDb.db, { reportsDir: await mkdtemp(path.join(os.tmpdir(), 'config-wait-')) });
    const w = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps) });
    const result = (await w.runUntil(async () => {
      const waiting = await until('the job waits for the setting', () => jobs.get(id), (r) => r.configWait !== undefined);
      assert.equal(waiting.status, 'retrying');
      assert.equal(waiting.error?.type, ErrorType.MissingConfig);
      assert.match(waiting.error?.message ?? '', /SYNC_SOURCE_URL is not set/);
      assert.equal(waiting.attempts, 1, 'its one check, not a retry schedule');
      assert.equal(waiting.maxAttempts, 8);
      // Three hours of test time: 10 s, 30 s, 1 min, 5 min, then a check every 15 minutes.
      await env.sleep('3h');
      const later = await until('more checks ran', () => jobs.get(id), (r) => (r.configWait?.checks ?? 0) >= 10);
      assert.equal(later.status, 'retrying');
      assert.equal(later.attempts, 1);
      const checks = await attemptsOf(env, id);
      assert.ok(checks.length >= 10, `checked ${checks.length} times`);
      assert.deepEqual(new Set(checks.map(([, attempt]) => attempt)), new Set([1]), 'every check was the first attempt of its step');
      deps.syncSourceUrl = http.url;
      return handle.result();
    })) as SyncDataResult;
    assert.equal(result.records, 5);
    assert.equal(result.finished, 'exhausted');
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.configWait, undefined);
    assert.equal(record.attempts, 1);
    assert.equal(record.error, undefined);
  });

  it('gives up after 7 days: the job fails with jobs:missing-config and is dead-lettered', async () => {
    const taskQueue = uniqueId('tq-config-limit');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const { id, handle } = await jobs.enqueue('sync-data', { source: uniqueId('src').slice(0, 40) }, { id: uniqueId('sync-limit') });
    const w = await worker(taskQueue);
    const { err, entries } = await w.runUntil(async () => {
      const err = await handle.result().then(() => undefined, (e: unknown) => e);
      return { err, entries: await deadLetterEntries(env.client, taskQueue, 'sync-data') };
    });
    assert.ok(err instanceof WorkflowFailedError);
    const record = await jobs.get(id);
    const waitedDays = (Date.parse(record.failedAt!) - Date.parse(record.createdAt)) / 86_400_000;
    assert.ok(waitedDays >= 6.9 && waitedDays <= 7.1, `waited ${waitedDays.toFixed(2)} days`);
    assert.equal(record.status, 'failed');
    assert.equal(record.error?.type, ErrorType.MissingConfig);
    assert.equal(record.attempts, 1);
    assert.equal(entries.find((e) => e.id === id)?.error.type, ErrorType.MissingConfig);
  });

  it('a sync-data job asked to stop while it waits for a setting stops at once: no page is in flight', async () => {
    const taskQueue = uniqueId('tq-config-stop');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const { id, handle } = await jobs.enqueue('sync-data', { source: uniqueId('src').slice(0, 40) }, { id: uniqueId('sync-stop') });
    const w = await worker(taskQueue);
    const result = (await w.runUntil(async () => {
      await until('the job waits for the setting', () => jobs.get(id), (r) => r.configWait !== undefined);
      await handle.signal(requestStopSignal, { reason: 'no source yet' });
      return handle.result();
    })) as SyncDataResult;
    assert.equal(result.finished, 'stopped');
    assert.equal(result.stopReason, 'no source yet');
    assert.equal(result.pages, 0);
    assert.equal((await jobs.get(id)).status, 'completed');
  });

  it('a job cancelled while it waits for a setting ends cancelled, with the wait\'s error on its record', async () => {
    const taskQueue = uniqueId('tq-config-cancel');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const { id, handle } = await jobs.enqueue('sync-data', { source: uniqueId('src').slice(0, 40) }, { id: uniqueId('sync-cancel') });
    const w = await worker(taskQueue);
    await w.runUntil(async () => {
      await until('the job waits for the setting', () => jobs.get(id), (r) => r.configWait !== undefined);
      await jobs.cancel(id);
      const err = await handle.result().catch((e: unknown) => e);
      assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, `cancelled, got ${String(err)}`);
    });
    const record = await jobs.get(id);
    assert.equal(record.status, 'cancelled');
    assert.equal(record.attempts, 1);
  });
});

describe('a job waiting for a setting resumes when its worker restarts with it (real dev server)', function () {
  this.timeout(180_000);
  let jobsEnv: JobsTestEnv;
  let http: TestSyncSource;
  before(async () => {
    jobsEnv = await startJobsTestEnv(startDevServerEnv);
    http = await startSyncSource();
  });
  after(async () => {
    await http?.close();
    await stopJobsTestEnv(jobsEnv ?? {});
  });

  it('a worker without SYNC_SOURCE_URL stops, one with it starts: the job completes at its next check, on its first attempt', async () => {
    const { env, bundle, testDb } = jobsEnv;
    const taskQueue = uniqueId('tq-config-restart');
    const source = uniqueId('src').slice(0, 40);
    http.setRecords(source, makeRecords(3));
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const start = (syncSourceUrl?: string) => createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir(), syncSourceUrl })) });
    const { id, handle } = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id: uniqueId('sync-restart') });
    await (await start()).runUntil(async () => {
      for (const deadline = Date.now() + 30_000; (await jobs.get(id)).configWait === undefined; ) {
        if (Date.now() > deadline) throw new Error('the job never waited for its setting');
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    const result = (await (await start(http.url)).runUntil(handle.result())) as SyncDataResult;
    assert.equal(result.records, 3);
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 1);
    assert.deepEqual(new Set((await attemptsOf(env, id)).map(([, attempt]) => attempt)), new Set([1]));
  });
});
