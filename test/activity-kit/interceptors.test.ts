import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type ActivityInterceptorsFactory, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { jobActivityInterceptors } from '../../src/activity-kit/interceptors';
import { createReportsActivities, type ReportPageEvent, type ReportsOptions } from '../../src/activities/reports';
import { JobClient } from '../../src/client/job-client';
import { type TestDb } from '../helpers/db';
import { startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

const jan = { from: '2026-01-01', to: '2026-02-01' };

/** An account with three January ledger entries: three pages of one, so a retried attempt has pages left after its predecessor's heartbeat. */
async function seedAccount(db: TestDb['db']): Promise<string> {
  const account = uniqueId('acct');
  await db.insertInto('accounts').values({ id: account, currency: 'EUR', balance: 0, held: 0 }).execute();
  const entries = [1, 2, 3].map((i) => ({ payment_id: `${account}-p${i}`, leg: 'capture:debit', account_id: account, amount: -i, currency: 'EUR', created_at: `2026-01-0${i}T00:00:00.000Z` }));
  await db.insertInto('entries').values(entries).execute();
  return account;
}

// The activity interceptor on a real worker (time-skipping server): an attempt that stops
// heartbeating is named by the next attempt, and by the job record.
describe('job activity interceptors (time-skipping)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  /** A worker with the job interceptors, behind a spy that records the log attributes they compose. */
  async function setUp(options: ReportsOptions) {
    const taskQueue = uniqueId('tq');
    const deps = testActivityDeps(testDb.db, { reportsDir: await mkdtemp(path.join(os.tmpdir(), 'interceptors-')) });
    const logged: Record<string, unknown>[] = [];
    // Outermost, so what it sees is what the job interceptor added to every log line.
    const spy: ActivityInterceptorsFactory = () => ({
      outbound: {
        getLogAttributes: (input, next) => {
          const attributes = next(input);
          logged.push(attributes);
          return attributes;
        },
      },
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      workflowBundle: bundle,
      taskQueue,
      activities: { ...createActivities(deps), ...createReportsActivities(deps, options) },
      interceptors: { activity: [spy, jobActivityInterceptors(catalog)] },
    });
    return { worker, logged, jobs: new JobClient(env.client, { catalog, taskQueue }) };
  }

  it('an attempt that stops heartbeating: the next attempt logs why (job:stalled, previousAttempt) and the job record names the heartbeat timeout', async () => {
    let secondAttempt!: () => void;
    const reached = new Promise<void>((resolve) => (secondAttempt = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const afterPage = async ({ attempt }: ReportPageEvent) => {
      if (attempt === 1) await Context.current().sleep('1h');
      if (attempt === 2) {
        secondAttempt();
        await released;
      }
    };
    const { worker, logged, jobs } = await setUp({ pageSize: 1, pagesPerBatch: 10, afterPage });
    const id = uniqueId('stalled-report');
    const { handle } = await jobs.enqueue('generate-report', { ...jan, accounts: [await seedAccount(testDb.db)], name: id }, { id });
    await worker.runUntil(async () => {
      await reached;
      try {
        const record = await jobs.get(id);
        assert.deepEqual({ status: record.status, attempts: record.attempts, error: record.error && { type: record.error.type, stall: record.error.stall } }, { status: 'running', attempts: 2, error: { type: 'timeout', stall: 'heartbeat-timeout' } }, 'the job record says how attempt 1 ended');
      } finally {
        release();
      }
      await handle.result();
    });
    const second = logged.filter((a) => a.attempt === 2);
    for (const attributes of second) {
      assert.deepEqual([attributes.jobId, attributes.jobType, typeof attributes.runId], [id, 'generate-report', 'string'], 'every line names the job and its run');
    }
    // The SDK's own "Activity started" comes before the diagnosis; job:stalled, job:attempt and
    // everything after carry it.
    assert.ok(second.filter((a) => a.previousAttempt === 'heartbeat-timeout').length >= 2, 'attempt 2 logs why attempt 1 ended');
    assert.ok(logged.filter((a) => a.attempt === 1).every((a) => a.previousAttempt === undefined && a.jobId === id));
  });
});
