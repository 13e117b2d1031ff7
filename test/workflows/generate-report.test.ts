import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { KyselyPlugin } from 'kysely';
import type { Activities } from '../../src/activities';
import { createReportsActivities, defaultReportStem, type ReportPageEvent, type ReportPagesInput, type ReportsOptions } from '../../src/activities/reports';
import { JobClient } from '../../src/client/job-client';
import type { Db } from '../../src/jobs/database/schema';
import type { GenerateReportResult } from '../../src/jobs/generate-report';
import { InvalidPayloadError } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { deadLetterEntries } from '../helpers/dlq';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';
import { GenerateReportErrorType } from '../../src/jobs/generate-report';

const jan = { from: '2026-01-01', to: '2026-02-01' };

/** `payments` postings of 100+i in January between three EUR accounts (every fifth in USD), one hour apart, plus one entry on each side of the period. */
async function seed(db: Db, prefix: string, payments: number): Promise<string[]> {
  const ids = ['a', 'b', 'c', 'usd'].map((a) => prefix + a);
  await db.insertInto('accounts').values(ids.map((id) => ({ id, currency: id.endsWith('usd') ? 'USD' : 'EUR', balance: 0, held: 0 }))).execute();
  const rows = [];
  for (let i = 0; i < payments; i++) {
    const [from, to] = i % 5 === 4 ? ['usd', 'usd'] : i % 2 ? ['a', 'b'] : ['b', 'c'];
    const entry = { payment_id: `${prefix}p${String(i).padStart(3, '0')}`, currency: from === 'usd' ? 'USD' : 'EUR', created_at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString() };
    rows.push({ ...entry, leg: 'capture:debit', account_id: prefix + from, amount: -(100 + i) });
    rows.push({ ...entry, leg: 'capture:credit', account_id: prefix + to, amount: 100 + i });
  }
  rows.push({ payment_id: `${prefix}early`, leg: 'capture:debit', account_id: `${prefix}a`, amount: -7, currency: 'EUR', created_at: '2025-12-31T23:59:59.999Z' });
  rows.push({ payment_id: `${prefix}late`, leg: 'capture:debit', account_id: `${prefix}a`, amount: -9, currency: 'EUR', created_at: '2026-02-01T00:00:00.000Z' });
  await db.insertInto('entries').values(rows).execute();
  return ids;
}

describe('generate-report job (time-skipping)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  /** A worker, a client and a fresh reports directory; the reports activities built with `options`. */
  async function setUp(options: ReportsOptions = {}, db: Db = testDb.db, reportsDir?: string, wrap: (a: Activities) => object = (a) => a) {
    const taskQueue = uniqueId('tq');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'reports-'));
    const deps = testActivityDeps(db, { reportsDir: reportsDir ?? dir });
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: wrap({ ...createActivities(deps), ...createReportsActivities(deps, options) }) });
    return { dir, worker, jobs: new JobClient(env.client, { catalog, taskQueue }), prefix: `${uniqueId('w')}-` };
  }

  it('writes the CSV report and reports its progress', async () => {
    const { dir, worker, jobs, prefix } = await setUp({ pageSize: 4, pagesPerBatch: 2 });
    const accounts = await seed(testDb.db, prefix, 4);
    const { id, handle } = await jobs.enqueue('generate-report', { ...jan, accounts, name: 'jan' }, { id: uniqueId('job') });
    const result = (await worker.runUntil(handle.result())) as GenerateReportResult;

    // p0 b→c 100, p1 a→b 101, p2 b→c 102, p3 a→b 103; the entries just outside January are left out.
    assert.equal(
      await readFile(path.join(dir, 'jan.csv'), 'utf8'),
      ['account_id,currency,debits,credits,net,entries', `${prefix}a,EUR,204,0,-204,2`, `${prefix}b,EUR,202,204,2,4`, `${prefix}c,EUR,0,202,202,2`, ''].join('\n'),
    );
    assert.deepEqual(result, { path: path.join(dir, 'jan.csv'), format: 'csv', rows: 3, entries: 8, alreadyExisted: false });
    assert.deepEqual(await readdir(dir), ['jan.csv']);
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.deepEqual(record.progress, { done: 8, total: 8, unit: 'entries' });
  });

  it('writes JSON under a name derived from the job ID, in batches', async () => {
    const { dir, worker, jobs, prefix } = await setUp({ pageSize: 4, pagesPerBatch: 2 });
    const accounts = await seed(testDb.db, prefix, 10);
    const id = `${uniqueId('job')}/2026:01`;
    const { handle } = await jobs.enqueue('generate-report', { ...jan, accounts, format: 'json' }, { id });
    const result = (await worker.runUntil(handle.result())) as GenerateReportResult;

    assert.equal(result.path, path.join(dir, `${defaultReportStem(id)}.json`));
    assert.match(path.basename(result.path), /^report-job-[0-9a-f-]+_2f2026_3a01\.json$/);
    const report = JSON.parse(await readFile(result.path, 'utf8')) as { entries: number; rows: { accountId: string; debits: number; credits: number; net: number; entries: number }[] };
    assert.equal(report.entries, 20);
    // a: 101+103+105+107 (odd i) out; b: even i out (0,2,6,8) and odd i in; c: even i in; usd: i=4 and 9.
    assert.deepEqual(
      report.rows.map((r) => [r.accountId.slice(prefix.length), r.debits, r.credits, r.net, r.entries]),
      [
        ['a', 416, 0, -416, 4],
        ['b', 416, 416, 0, 8],
        ['c', 0, 416, 416, 4],
        ['usd', 213, 213, 0, 4],
      ],
    );
  });

  it('resumes a failed attempt from its last heartbeat instead of re-reading earlier pages', async () => {
    const pages: [number, number][] = [];
    const afterPage = ({ attempt, progress }: ReportPageEvent) => {
      pages.push([attempt, progress.done]);
      if (attempt === 1 && progress.done === 12) throw new Error('worker lost its database connection');
    };
    const { worker, jobs, prefix } = await setUp({ pageSize: 4, pagesPerBatch: 2, afterPage });
    const accounts = await seed(testDb.db, prefix, 10);
    const { id, handle } = await jobs.enqueue('generate-report', { ...jan, accounts }, { id: uniqueId('job') });
    const result = (await worker.runUntil(handle.result())) as GenerateReportResult;

    // batch 1: pages to 4, 8; batch 2: 12, then dies; its attempt 2 goes on at 16 (two pages per attempt).
    assert.deepEqual(pages, [[1, 4], [1, 8], [1, 12], [2, 16], [2, 20]]);
    assert.equal(result.entries, 20);
    assert.equal((await jobs.get(id)).status, 'completed');
  });

  it('notices a stalled worker by its heartbeat timeout and resumes from the last heartbeat', async () => {
    const pages: [number, number][] = [];
    const afterPage = async ({ attempt, progress }: ReportPageEvent) => {
      pages.push([attempt, progress.done]);
      if (attempt === 1 && progress.done === 12) await Context.current().sleep('1h');
    };
    const { worker, jobs, prefix } = await setUp({ pageSize: 4, pagesPerBatch: 2, afterPage });
    const accounts = await seed(testDb.db, prefix, 10);
    const { handle } = await jobs.enqueue('generate-report', { ...jan, accounts, name: 'stalled' }, { id: uniqueId('job') });
    const result = (await worker.runUntil(handle.result())) as GenerateReportResult;

    assert.deepEqual(pages, [[1, 4], [1, 8], [1, 12], [2, 16], [2, 20]]);
    assert.equal(result.entries, 20);
  });

  it('stops promptly when cancelled and leaves no file behind', async () => {
    let reached: () => void = () => {};
    const third = new Promise<void>((resolve) => (reached = resolve));
    const afterPage = async ({ progress }: ReportPageEvent) => {
      if (progress.done === 6) {
        reached();
        await Context.current().sleep('1h');
      }
    };
    const { dir, worker, jobs, prefix } = await setUp({ pageSize: 2, pagesPerBatch: 2, afterPage });
    const accounts = await seed(testDb.db, prefix, 10);
    const { id, handle } = await jobs.enqueue('generate-report', { ...jan, accounts, name: 'cancelled' }, { id: uniqueId('job') });
    const err = await worker.runUntil(async () => {
      await third;
      const running = await jobs.get(id);
      assert.equal(running.status, 'running');
      assert.deepEqual(running.progress, { done: 4, total: 20, unit: 'entries' });
      const cancelledAt = Date.now();
      await handle.cancel();
      const failure = await handle.result().catch((e: unknown) => e);
      assert.ok(Date.now() - cancelledAt < 15_000, 'the attempt saw the cancellation within a heartbeat interval');
      return failure;
    });

    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof CancelledFailure);
    assert.deepEqual(await readdir(dir), []);
    const record = await jobs.get(id);
    assert.equal(record.status, 'cancelled');
    assert.deepEqual(record.compensation, { status: 'done', undone: ['report'] });
  });

  it('fails at once, and is dead-lettered, when the reports directory cannot be written', async () => {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'reports-')), 'not-a-dir');
    await writeFile(file, '');
    const { worker, jobs, prefix } = await setUp({}, testDb.db, path.join(file, 'reports'));
    const accounts = await seed(testDb.db, prefix, 2);
    const { id, handle } = await jobs.enqueue('generate-report', { ...jan, accounts }, { id: uniqueId('job') });
    // The DLQ workflow runs on the job's task queue, so it is read while the worker runs.
    const { err, entries } = await worker.runUntil(async () => {
      const failure = await handle.result().then(() => undefined, (e: unknown) => e);
      return { err: failure, entries: await deadLetterEntries(env.client, jobs.taskQueue, 'generate-report') };
    });

    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ActivityFailure);
    assert.ok(err.cause.cause instanceof ApplicationFailure);
    // TODO(lead): GenerateReportErrorType.ReportFailed once errors.ts has it.
    assert.equal(err.cause.cause.type, GenerateReportErrorType.ReportFailed);
    assert.match(err.cause.cause.message, /not writable/);
    const record = await jobs.get(id);
    assert.equal(record.status, 'failed');
    assert.equal(record.attempts, 1);
    assert.equal(record.error?.type, GenerateReportErrorType.ReportFailed);
    const entry = entries.find((e) => e.id === id);
    assert.equal(entry?.status, 'dead-lettered');
    assert.equal(entry?.error.type, GenerateReportErrorType.ReportFailed);
  });

  it('runs a job once when the same ID is enqueued twice', async () => {
    let calls = 0;
    const { dir, worker, jobs, prefix } = await setUp({}, testDb.db, undefined, (a) => ({
      ...a,
      aggregateReportPages: (input: ReportPagesInput) => ((calls += 1), a.aggregateReportPages(input)),
    }));
    const accounts = await seed(testDb.db, prefix, 3);
    const payload = { ...jan, accounts, name: 'once' };
    const id = uniqueId('job');
    const first = await jobs.enqueue('generate-report', payload, { id });
    const second = await jobs.enqueue('generate-report', payload, { id });
    assert.equal(first.existed, false);
    assert.equal(second.existed, true);
    await worker.runUntil(first.handle.result());
    assert.equal((await jobs.enqueue('generate-report', payload, { id })).existed, true);
    assert.equal(calls, 1);
    assert.deepEqual(await readdir(dir), ['once.csv']);
  });

  it('retries a transient database failure on the schedule and then succeeds', async () => {
    let failures = 1;
    const flaky: KyselyPlugin = {
      transformQuery: (args) => {
        if (failures > 0 && (failures -= 1) >= 0) throw new Error('SQLITE_BUSY: database is locked');
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const { worker, jobs, prefix } = await setUp({}, testDb.db.withPlugin(flaky));
    const accounts = await seed(testDb.db, prefix, 3);
    const { id, handle } = await jobs.enqueue('generate-report', { ...jan, accounts }, { id: uniqueId('job') });
    const result = (await worker.runUntil(handle.result())) as GenerateReportResult;

    assert.equal(result.entries, 6);
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 2);
  });

  it('rejects a bad payload before anything is enqueued', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
    const reject = async (payload: object) => {
      const err = await jobs.enqueue('generate-report', payload as never, { id: uniqueId('job') }).catch((e: unknown) => e);
      assert.ok(err instanceof InvalidPayloadError);
      return err.issues.map((i) => `${i.path}: ${i.message}`);
    };
    assert.deepEqual(await reject({ from: '2026-02-01', to: '2026-01-01' }), ['payload.to: must be after from']);
    assert.deepEqual(await reject({ from: '2025-01-01', to: '2026-01-03' }), ['payload.to: the period must be at most 366 days']);
    const badName = ['payload.name: must be 1-100 characters from A-Z a-z 0-9 . _ - and not start with a dot'];
    assert.deepEqual(await reject({ ...jan, name: '../etc/passwd' }), badName);
    assert.deepEqual(await reject({ ...jan, name: '.hidden' }), badName);
    const issues = await reject({ from: 'January', to: jan.to, format: 'xml', accounts: [], extra: 1 });
    assert.deepEqual(issues.map((i) => i.split(':')[0]), ['payload.from', 'payload.format', 'payload.accounts', 'payload']);
  });
});
