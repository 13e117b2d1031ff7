import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { ActivityCancellationDetails } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { asJobStep } from '../../src/testing/run-step';
import { DefaultLogger } from '@temporalio/worker';
import type { Info } from '@temporalio/activity';
import type { ActivityDeps } from '../../src/activities';
import { createReportsActivities, defaultReportStem, type ReportHeartbeat, type ReportsOptions } from '../../src/activities/reports';
import type { Db } from '../../src/jobs/database/schema';
import { describeEachDatabase } from '../helpers/db';
import { GenerateReportErrorType } from '../../src/jobs/generate-report';

const jan = { from: '2026-01-01', to: '2026-02-01' };

/** Two postings per payment id in the period, plus one entry on each side of it that must be left out. */
async function insertLedger(db: Db, prefix: string, payments: number): Promise<void> {
  const accounts = ['a', 'b', 'c', 'usd'].map((id) => ({ id: `${prefix}${id}`, currency: id === 'usd' ? 'USD' : 'EUR', balance: 0, held: 0 }));
  await db.insertInto('accounts').values(accounts).execute();
  const rows = [];
  const at = (ms: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + ms).toISOString();
  for (let i = 0; i < payments; i++) {
    const usd = i % 5 === 4;
    const [from, to] = usd ? ['usd', 'usd'] : i % 2 ? ['a', 'b'] : ['b', 'c'];
    const amount = 100 + i;
    const created_at = at(i * 3_600_000);
    const currency = usd ? 'USD' : 'EUR';
    rows.push({ payment_id: `${prefix}p${i}`, leg: 'capture:debit', account_id: `${prefix}${from}`, amount: -amount, currency, created_at });
    rows.push({ payment_id: `${prefix}p${i}`, leg: 'capture:credit', account_id: `${prefix}${to}`, amount, currency, created_at });
  }
  rows.push({ payment_id: `${prefix}early`, leg: 'capture:debit', account_id: `${prefix}a`, amount: -7, currency: 'EUR', created_at: '2025-12-31T23:59:59.999Z' });
  rows.push({ payment_id: `${prefix}late`, leg: 'capture:debit', account_id: `${prefix}a`, amount: -9, currency: 'EUR', created_at: '2026-02-01T00:00:00.000Z' });
  await db.insertInto('entries').values(rows).execute();
}

/** The report's rows computed the obvious way, for comparison. */
async function expectedRows(db: Db, prefix: string) {
  const entries = await db.selectFrom('entries').selectAll().where('created_at', '>=', '2026-01-01T00:00:00.000Z').where('created_at', '<', '2026-02-01T00:00:00.000Z').where('payment_id', 'like', `${prefix}%`).execute();
  const rows = new Map<string, { accountId: string; currency: string; debits: number; credits: number; net: number; entries: number }>();
  for (const e of entries) {
    const key = `${e.account_id} ${e.currency}`;
    const row = rows.get(key) ?? { accountId: e.account_id, currency: e.currency, debits: 0, credits: 0, net: 0, entries: 0 };
    if (e.amount < 0) row.debits -= Number(e.amount);
    else row.credits += Number(e.amount);
    row.net += Number(e.amount);
    row.entries += 1;
    rows.set(key, row);
  }
  return [...rows.values()].sort((x, y) => (x.accountId + x.currency < y.accountId + y.currency ? -1 : 1));
}

describe('defaultReportStem', () => {
  it('escapes every character outside A-Za-z0-9- so the name is safe and distinct', () => {
    assert.equal(defaultReportStem('job-1'), 'report-job-1');
    assert.equal(defaultReportStem('../etc/passwd'), 'report-_2e_2e_2fetc_2fpasswd');
    assert.notEqual(defaultReportStem('a_2f'), defaultReportStem('a/'));
    const long = defaultReportStem('x/'.repeat(300));
    assert.match(long, /^[A-Za-z0-9._-]{1,100}$/);
    assert.notEqual(long, defaultReportStem(`${'x/'.repeat(300)}y`));
  });
});

describeEachDatabase('reports activities', (getDb) => {
  let n = 0;
  let prefix: string;
  let dir: string;
  beforeEach(async () => {
    prefix = `r${(n += 1)}-`;
    dir = await mkdtemp(path.join(os.tmpdir(), 'reports-'));
  });

  function activities(options: ReportsOptions = {}, db: Db = getDb().db, reportsDir = dir) {
    const deps = { db, reportsDir } as ActivityDeps;
    return createReportsActivities(deps, { pageSize: 5, ...options });
  }
  function mockEnv(info: Partial<Info> = {}) {
    const mock = new MockActivityEnvironment({ heartbeatTimeoutMs: 10_000, ...info }, { logger: new DefaultLogger('ERROR', () => {}) });
    const beats: ReportHeartbeat[] = [];
    mock.on('heartbeat', (d: ReportHeartbeat) => beats.push(structuredClone(d)));
    // Each call runs as an attempt of the job `job-<prefix>`.
    const env = { cancel: mock.cancel, run: <I, O>(fn: (input: I) => Promise<O>, arg: I): Promise<O> => mock.run(asJobStep(fn, { jobId: `job-${prefix}` }), arg) };
    return { env, beats };
  }
  const mine = () => ['a', 'b', 'c', 'usd'].map((a) => prefix + a);
  const input = (payload: object) => ({ payload: { ...jan, accounts: mine(), ...payload } });

  it('writes the CSV aggregate per account and currency, only for [from, to)', async () => {
    await insertLedger(getDb().db, prefix, 4);
    const { aggregateReportPages } = activities();
    const result = await mockEnv().env.run(aggregateReportPages, input({ name: 'jan' }));
    const csv = await readFile(path.join(dir, 'jan.csv'), 'utf8');
    // p0 b→c 100, p1 a→b 101, p2 b→c 102, p3 a→b 103
    assert.equal(
      csv,
      ['account_id,currency,debits,credits,net,entries', `${prefix}a,EUR,204,0,-204,2`, `${prefix}b,EUR,202,204,2,4`, `${prefix}c,EUR,0,202,202,2`, ''].join('\n'),
    );
    assert.deepEqual(result.report, { path: path.join(dir, 'jan.csv'), format: 'csv', rows: 3, entries: 8, alreadyExisted: false });
    assert.deepEqual(await readdir(dir), ['jan.csv']);
  });

  it('writes JSON that matches a straightforward aggregation, across batches', async () => {
    await insertLedger(getDb().db, prefix, 23);
    const { aggregateReportPages } = activities({ pagesPerBatch: 2 });
    const payload = { format: 'json' };
    let batch = await mockEnv().env.run(aggregateReportPages, input(payload));
    const seen = [batch.done];
    while (!batch.report) {
      batch = await mockEnv().env.run(aggregateReportPages, { ...input(payload), after: batch });
      seen.push(batch.done);
    }
    assert.deepEqual(seen, [10, 20, 30, 40, 46]);
    assert.equal(batch.total, 46);
    const report = JSON.parse(await readFile(batch.report.path, 'utf8')) as { entries: number; rows: unknown[] };
    assert.equal(report.entries, 46);
    assert.deepEqual(report.rows, await expectedRows(getDb().db, prefix));
    assert.deepEqual(await readdir(dir), [path.basename(batch.report.path)]);
  });

  it('resumes a new attempt from the last heartbeat without re-reading earlier pages', async () => {
    await insertLedger(getDb().db, prefix, 10);
    const pages: { attempt: number; done: number }[] = [];
    const { aggregateReportPages } = activities({
      afterPage: ({ attempt, progress }) => {
        pages.push({ attempt, done: progress.done });
        if (attempt === 1 && progress.done === 15) throw new Error('worker died');
      },
    });
    const payload = { format: 'json' };
    const first = mockEnv();
    await assert.rejects(first.env.run(aggregateReportPages, input(payload)), /worker died/);
    const last = first.beats.at(-1)!;
    assert.equal(last.done, 15);
    assert.equal(last.total, 20);
    const result = await mockEnv({ attempt: 2, heartbeatDetails: last }).env.run(aggregateReportPages, input(payload));
    assert.deepEqual(pages, [
      { attempt: 1, done: 5 },
      { attempt: 1, done: 10 },
      { attempt: 1, done: 15 },
      { attempt: 2, done: 20 },
    ]);
    assert.deepEqual(JSON.parse(await readFile(result.report!.path, 'utf8')).rows, await expectedRows(getDb().db, prefix));
  });

  it('starts over when the checkpoint is gone', async () => {
    await insertLedger(getDb().db, prefix, 4);
    const { aggregateReportPages } = activities();
    const details = { done: 5, total: 8, cursor: { createdAt: '2026-01-01T02:00:00.000Z', paymentId: `${prefix}p2`, leg: 'capture:debit' } };
    const result = await mockEnv({ attempt: 2, heartbeatDetails: details }).env.run(aggregateReportPages, input({ name: 'lost' }));
    assert.equal(result.report?.entries, 8);
  });

  it('deletes its temporary files and throws when the job is cancelled', async () => {
    await insertLedger(getDb().db, prefix, 10);
    const { env } = mockEnv();
    const { aggregateReportPages } = activities({ afterPage: ({ progress }) => (progress.done === 10 ? env.cancel() : undefined) });
    await assert.rejects(env.run(aggregateReportPages, input({ name: 'cancelled' })), CancelledFailure);
    assert.deepEqual(await readdir(dir), []);
  });

  it('keeps the checkpoint when the attempt is cancelled for timing out, so the next attempt resumes', async () => {
    await insertLedger(getDb().db, prefix, 10);
    const { env, beats } = mockEnv();
    const timedOut = new ActivityCancellationDetails({ timedOut: true });
    const { aggregateReportPages } = activities({ afterPage: ({ progress }) => (progress.done === 10 ? env.cancel('TIMED_OUT', timedOut) : undefined) });
    await assert.rejects(env.run(aggregateReportPages, input({ name: 'stalled' })), CancelledFailure);
    assert.equal((await readdir(dir)).filter((f) => f.endsWith('.partial')).length, 1);
    const result = await mockEnv({ attempt: 2, heartbeatDetails: beats.at(-1) }).env.run(activities().aggregateReportPages, input({ name: 'stalled' }));
    assert.equal(result.report?.entries, 20);
    assert.deepEqual(await readdir(dir), ['stalled.csv']);
  });

  it('keeps the checkpoint when its worker shuts down, so the attempt on another worker resumes from the last heartbeat', async () => {
    await insertLedger(getDb().db, prefix, 10);
    const { env, beats } = mockEnv();
    const pages: { attempt: number; done: number }[] = [];
    const shutdown = new ActivityCancellationDetails({ workerShutdown: true });
    const { aggregateReportPages } = activities({
      afterPage: ({ attempt, progress }) => {
        pages.push({ attempt, done: progress.done });
        if (attempt === 1 && progress.done === 10) env.cancel('WORKER_SHUTDOWN', shutdown);
      },
    });
    await assert.rejects(env.run(aggregateReportPages, input({ name: 'drained' })), CancelledFailure);
    assert.equal((await readdir(dir)).filter((f) => f.endsWith('.partial')).length, 1, 'the checkpoint survives the shutdown');
    const result = await mockEnv({ attempt: 2, heartbeatDetails: beats.at(-1) }).env.run(aggregateReportPages, input({ name: 'drained' }));
    assert.equal(result.report?.entries, 20);
    assert.deepEqual(pages.filter((p) => p.attempt === 2).map((p) => p.done), [15, 20], 'no page read twice');
  });

  it('returns a report already under its final name without reading the database', async () => {
    await writeFile(path.join(dir, 'done.csv'), 'account_id,currency,debits,credits,net,entries\na,EUR,1,0,-1,3\nb,EUR,0,1,1,2\n');
    const unusable = new Proxy({}, { get: () => assert.fail('the database was read') }) as Db;
    const result = await mockEnv().env.run(activities({}, unusable).aggregateReportPages, input({ name: 'done' }));
    assert.deepEqual(result.report, { path: path.join(dir, 'done.csv'), format: 'csv', rows: 2, entries: 5, alreadyExisted: true });
  });

  it('fails without retrying when the reports directory cannot be written', async () => {
    await insertLedger(getDb().db, prefix, 1);
    const file = path.join(dir, 'not-a-dir');
    await writeFile(file, '');
    const err = await mockEnv().env.run(activities({}, getDb().db, path.join(file, 'reports')).aggregateReportPages, input({})).catch((e: unknown) => e);
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.nonRetryable, true);
    assert.equal(err.type, GenerateReportErrorType.ReportFailed);
    assert.match(err.message, /not writable/);
  });

  it('discardReportFiles removes temporary files, never the finished report', async () => {
    await insertLedger(getDb().db, prefix, 10);
    const { aggregateReportPages, discardReportFiles } = activities({ pagesPerBatch: 1 });
    await mockEnv().env.run(aggregateReportPages, input({ name: 'half' }));
    await writeFile(path.join(dir, 'half.csv'), 'finished elsewhere\n');
    const { removed } = await mockEnv().env.run(discardReportFiles, input({ name: 'half' }));
    assert.equal(removed.length, 1);
    assert.deepEqual(await readdir(dir), ['half.csv']);
  });
});
