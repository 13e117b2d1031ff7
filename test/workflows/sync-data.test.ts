import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { SyncPageInput, SyncPageResult } from '../../src/activities/sync-source';
import { JobClient } from '../../src/client/job-client';
import { ledgerSteps } from '../../src/activity-kit/ledger';
import type { SyncDataResult } from '../../src/jobs/sync-data';
import { syncDataPayload } from '../../src/jobs/payloads/sync-data';
import { InvalidPayloadError } from '../../src/shared/errors';
import { jobStateMemoKey, type JobState } from '../../src/workflow-kit/job-state';
import { requestStopSignal, setPageSizeSignal } from '../../src/workflows/sync-data';
import { type TestDb } from '../helpers/db';
import { createTestWorker, type TestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import { deadLetterEntries } from '../helpers/dlq';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';
import { SyncDataErrorType } from '../../src/jobs/sync-data';
import { jobStartOptions } from '../../src/catalog/start-job';

type SyncPage = (input: SyncPageInput) => Promise<SyncPageResult>;

describe('sync-data job (time-skipping)', function () {
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

  /** A job on a fresh task queue and source; `wrap` may stand in front of the real syncPage. */
  async function setUp(records: number, wrap?: (real: SyncPage) => SyncPage) {
    const taskQueue = uniqueId('tq');
    const source = uniqueId('src').slice(0, 40);
    http.setRecords(source, makeRecords(records));
    const deps = testActivityDeps(testDb.db, { reportsDir: await mkdtemp(path.join(os.tmpdir(), 'sync-')), syncSourceUrl: http.url });
    const real = createActivities(deps);
    const activities = wrap ? { ...real, syncPage: wrap(real.syncPage) } : real;
    const worker: TestWorker = await createTestWorker(env, bundle, { taskQueue, activities: activities });
    return { taskQueue, source, id: uniqueId('job'), worker, jobs: new JobClient(env.client, { catalog, taskQueue }) };
  }
  const requestsOf = (source: string) => http.requests.filter((r) => r.source === source);
  const storedIds = async (source: string) =>
    (await testDb.db.selectFrom('sync_records').select('id').where('source', '=', source).orderBy('id').execute()).map((r) => r.id);
  const steps = async (id: string) => (await ledgerSteps(testDb.db, id)).map((s) => s.step).sort();

  it('syncs every page into sync_records once each and reports its progress', async () => {
    const { source, id, worker, jobs } = await setUp(7);
    const { handle } = await jobs.enqueue('sync-data', { source, pageSize: 3 }, { id });
    const result = (await worker.runUntil(handle.result())) as SyncDataResult;

    assert.deepEqual(result, { source, pages: 3, records: 7, runs: 1, finished: 'exhausted', nextCursor: null });
    assert.deepEqual(await storedIds(source), makeRecords(7).map((r) => r.id));
    assert.deepEqual(await steps(id), ['page:cursor:o3', 'page:cursor:o6', 'page:start']);
    assert.deepEqual(requestsOf(source).map((r) => [r.cursor, r.limit]), [[null, 3], ['o3', 3], ['o6', 3]]);
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.deepEqual(record.payload, { source, pageSize: 3 });
    const state = (await handle.describe()).memo?.[jobStateMemoKey] as JobState;
    assert.deepEqual(state.progress, { done: 3, unit: 'pages' });
  });

  it('retries a 503 on the preset schedule, then finishes without duplicating records', async () => {
    const { source, id, worker, jobs } = await setUp(4);
    http.answerNext({ status: 503, body: 'down for a moment' });
    const { handle } = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id });
    const result = (await worker.runUntil(handle.result())) as SyncDataResult;

    const sent = requestsOf(source);
    assert.deepEqual(sent.map((r) => r.status), [503, 200, 200]);
    const gap = sent[1]!.at! - sent[0]!.at!;
    assert.ok(gap >= 1000 && gap < 3000, `the first schedule step is 1s; the gap was ${gap} ms`);
    assert.equal(result.records, 4);
    assert.deepEqual(await storedIds(source), makeRecords(4).map((r) => r.id));
  });

  it('waits exactly the 120 s a 429 Retry-After asks for, in seconds of test time', async () => {
    const { source, id, worker, jobs } = await setUp(2);
    http.answerNext({ status: 429, headers: { 'retry-after': '120' } });
    const started = Date.now();
    const { handle } = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id });
    await worker.runUntil(handle.result());

    const sent = requestsOf(source);
    assert.deepEqual(sent.map((r) => r.status), [429, 200]);
    const gap = sent[1]!.at! - sent[0]!.at!;
    assert.ok(Math.abs(gap - 120_000) <= 2000, `gap was ${gap} ms, Retry-After said 120 s`);
    assert.ok(Date.now() - started < 30_000, 'the 120 s were skipped, not waited for');
  });

  it('fails a 404 at once as sync-data:sync-rejected, and the job lands in the dead-letter queue', async () => {
    const { source, id, worker, jobs } = await setUp(2);
    http.answerNext({ status: 404, body: '{"error":"unknown source"}' });
    const { handle } = await jobs.enqueue('sync-data', { source }, { id });
    const { err, entries } = await worker.runUntil(async () => {
      const err = await handle.result().then(() => undefined, (e: unknown) => e);
      return { err, entries: await deadLetterEntries(env.client, jobs.taskQueue, 'sync-data') };
    });

    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ActivityFailure);
    assert.ok(err.cause.cause instanceof ApplicationFailure);
    assert.equal(err.cause.cause.type, SyncDataErrorType.SyncRejected);
    assert.equal(requestsOf(source).length, 1);
    const record = await jobs.get(id);
    assert.equal(record.status, 'failed');
    assert.equal(record.error?.type, SyncDataErrorType.SyncRejected);
    const entry = entries.find((e) => e.id === id);
    assert.equal(entry?.status, 'dead-lettered');
    assert.equal(entry?.error.type, SyncDataErrorType.SyncRejected);
    assert.deepEqual(await storedIds(source), []);
  });

  it('runs a job once when the same ID is enqueued twice', async () => {
    const { source, id, worker, jobs } = await setUp(3);
    const first = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id });
    const second = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id });
    await worker.runUntil(first.handle.result());

    assert.equal(first.existed, false);
    assert.equal(second.existed, true);
    assert.equal(requestsOf(source).length, 2);
    assert.deepEqual(await steps(id), ['page:cursor:o2', 'page:start']);
  });

  it('after a crash between commit and completion, neither re-fetches nor re-applies the committed page', async () => {
    const replays: boolean[] = [];
    const { source, id, worker, jobs } = await setUp(6, (real) => async (input) => {
      const result = await real(input);
      if (input.cursor === 'o2') replays.push(result.replayed);
      if (input.cursor === 'o2' && Context.current().info.attempt === 1) throw new Error('worker died after the commit');
      return result;
    });
    const { handle } = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id });
    const result = (await worker.runUntil(handle.result())) as SyncDataResult;

    assert.deepEqual(replays, [false, true], 'attempt 2 found the page in the ledger');
    assert.deepEqual(requestsOf(source).map((r) => r.cursor), [null, 'o2', 'o4'], 'page o2 was fetched once');
    assert.deepEqual(await steps(id), ['page:cursor:o2', 'page:cursor:o4', 'page:start']);
    assert.deepEqual(await storedIds(source), makeRecords(6).map((r) => r.id));
    assert.equal(result.records, 6);
    assert.equal((await jobs.get(id)).status, 'completed');
  });

  it('stops at maxPages even when the source has more', async () => {
    const { source, id, worker, jobs } = await setUp(10);
    const { handle } = await jobs.enqueue('sync-data', { source, pageSize: 2, maxPages: 2 }, { id });
    const result = (await worker.runUntil(handle.result())) as SyncDataResult;

    assert.deepEqual(result, { source, pages: 2, records: 4, runs: 1, finished: 'max-pages', nextCursor: 'o4' });
    assert.equal(requestsOf(source).length, 2);
  });

  it('rejects a bad payload before anything is enqueued, naming each field', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
    const err = await jobs.enqueue('sync-data', { source: 'Bad Name', pageSize: 0, extra: true } as never).catch((e: unknown) => e);
    assert.ok(err instanceof InvalidPayloadError);
    assert.deepEqual(err.issues.map((i) => i.path).sort(), ['payload', 'payload.pageSize', 'payload.source']);
  });

  it('continues as new every pagesPerRun pages, keeps the payload and memo, and carries a signal sent at the hand-over', async () => {
    let id = '';
    const { source, taskQueue, worker, jobs, ...rest } = await setUp(20, (real) => async (input) => {
      const result = await real(input);
      // Delivered while the last page of run 1 completes: run 1 handles it in the task that continues as new.
      if (input.cursor === 'o2') await env.client.workflow.getHandle(id).signal(setPageSizeSignal, { pageSize: 5 });
      return result;
    });
    id = rest.id;
    const payload = syncDataPayload.parse({ source, pageSize: 2, pagesPerRun: 2 });
    // Started as the client starts a job (its JobType, by which the job knows its type), plus a memo of the caller's own.
    const { workflowType, memo, ...start } = jobStartOptions({ definition: catalog.definition('sync-data')!, payload, taskQueue });
    const handle = await env.client.workflow.start(workflowType, { ...start, workflowId: id, memo: { ...memo, owner: 'team-a' } });
    const result = (await worker.runUntil(handle.result())) as SyncDataResult;

    assert.deepEqual(result, { source, pages: 6, records: 20, runs: 3, finished: 'exhausted', nextCursor: null });
    assert.deepEqual(requestsOf(source).map((r) => [r.cursor, r.limit]), [[null, 2], ['o2', 2], ['o4', 5], ['o9', 5], ['o14', 5], ['o19', 5]]);
    assert.deepEqual(await storedIds(source), makeRecords(20).map((r) => r.id));
    const firstRun = (await env.client.workflow.getHandle(id, handle.firstExecutionRunId).fetchHistory()).events ?? [];
    assert.ok(firstRun.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'setPageSize'), 'run 1 received the signal');
    assert.ok(firstRun.at(-1)?.workflowExecutionContinuedAsNewEventAttributes, 'run 1 continued as new');
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.deepEqual(record.payload, payload);
    const description = await handle.describe();
    assert.notEqual(description.runId, handle.firstExecutionRunId);
    assert.equal(description.memo?.owner, 'team-a');
    assert.equal((description.memo?.[jobStateMemoKey] as JobState).run, 3);
  });

  it('stops after the page in flight when asked, and says why', async () => {
    let id = '';
    const { source, worker, jobs, ...rest } = await setUp(10, (real) => async (input) => {
      if (input.cursor === 'o4') await env.client.workflow.getHandle(id).signal(requestStopSignal, { reason: 'maintenance window' });
      return real(input);
    });
    id = rest.id;
    const { handle } = await jobs.enqueue('sync-data', { source, pageSize: 2 }, { id });
    const result = (await worker.runUntil(handle.result())) as SyncDataResult;

    assert.deepEqual(result, { source, pages: 3, records: 6, runs: 1, finished: 'stopped', nextCursor: 'o6', stopReason: 'maintenance window' });
    assert.equal(requestsOf(source).length, 3);
  });
});
