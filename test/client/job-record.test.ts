import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { JobClient } from '../../src/client/job-client';
import type { JobRecord } from '../../src/client/job-record';
import { JobNotFoundError } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { createTestWorker, repoRoot, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';
import { testActivityDeps } from '../helpers/worker';
import { startSmtpServer } from '../helpers/smtp';
import { catalog } from '../../src/jobs/catalog';
import { SendEmailErrorType } from '../../src/jobs/send-email';

const payload = { to: 'ada@example.com', subject: 'Hello', body: 'Hi Ada', userId: 'user-1' };
const jobctl = path.join(repoRoot, 'bin/jobctl.js');

describe('job record read back from Temporal', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  async function until(read: () => Promise<JobRecord>, done: (r: JobRecord) => boolean, timeoutMs = 10_000): Promise<JobRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await read();
      if (done(record) || Date.now() > deadline) return record;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('shows a job between attempts as retrying, with the attempts so far and the last error', async () => {
    const smtp = await startSmtpServer(() => ({ code: 451, message: 'greylisted' }));
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const worker = await createTestWorker(env, bundle, {
      taskQueue,
      activities: createActivities({ ...testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }), email: { smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' } }),
    });
    try {
      const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('job') });
      const record = await worker.runUntil(until(() => jobs.get(id), (r) => r.status === 'retrying'));
      assert.equal(record.status, 'retrying');
      assert.ok(record.attempts >= 1 && record.attempts < record.maxAttempts, `attempts ${record.attempts}`);
      assert.equal(record.maxAttempts, 6);
      assert.equal(record.error?.type, SendEmailErrorType.SmtpTransient);
      assert.match(record.error?.message ?? '', /451/);
      assert.equal(record.processedAt, undefined);
      assert.equal(record.failedAt, undefined);

      // jobctl's two forms of the record agree with JobClient's, the status above all.
      const ctlEnv = { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue };
      const human = await runCommand(process.execPath, [jobctl, 'status', id], ctlEnv);
      const json = await runCommand(process.execPath, [jobctl, 'status', id, '--json'], ctlEnv);
      assert.equal(human.code, 0, human.stderr);
      assert.equal(json.code, 0, json.stderr);
      assert.equal((JSON.parse(json.stdout) as JobRecord).status, 'retrying');
      assert.match(human.stdout, /^status: +retrying$/m);
      assert.match(human.stdout, /^error: +send-email:smtp-transient: .*451/m);
      await handle.terminate('test over');
      const terminated = await jobs.get(id);
      assert.equal(terminated.status, 'terminated');
      assert.ok(terminated.failedAt);
    } finally {
      await smtp.close();
    }
  });

  it('shows a delayed job as scheduled, with no attempts yet', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
    const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('job'), delay: '1h' });
    const record = await jobs.get(id);
    assert.equal(record.status, 'scheduled');
    assert.equal(record.attempts, 0);
    await handle.terminate('test over');
  });

  it('reads a job that ended, started by this release, without its catalog: jobctl status loads none', async () => {
    const taskQueue = uniqueId('tq');
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    const id = await worker.runUntil(async () => {
      const started = await jobs.enqueue('noop', {});
      await started.handle.result();
      return started.id;
    });
    // A catalog that says when it is asked: jobctl loads the project's catalog on first use (its zod and job modules, ~100 ms).
    const asked: string[] = [];
    const watched = new Proxy(catalog, { get: (target, key, receiver) => (asked.push(String(key)), Reflect.get(target, key, receiver)) });
    const record = await new JobClient(env.client, { catalog: watched, taskQueue }).get(id);
    assert.deepEqual(asked, [], 'the catalog is not consulted');
    assert.deepEqual(record, await jobs.get(id));
    assert.deepEqual([record.status, record.attempts, record.maxAttempts, record.step], ['completed', 1, 4, 'run']);
  });

  it('throws JobNotFoundError for an unknown ID', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: 'unused' });
    await assert.rejects(jobs.get(uniqueId('missing')), JobNotFoundError);
  });
});
