import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { createActivities } from '../../src/activities';
import { JobClient } from '../../src/client/job-client';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv } from '../helpers/env';
import { startSmtpServer } from '../helpers/smtp';
import { testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

const payload = { to: 'ada@example.com', subject: 'Cancel me', body: 'Never sent', userId: 'u-cancel' };

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A real dev server (not time skipping): cancellation reaches an attempt through its real heartbeats.
describe('cancelling a job stops its attempt (real dev server)', function () {
  this.timeout(180_000);
  let jobsEnv: JobsTestEnv;

  before(async () => {
    jobsEnv = await startJobsTestEnv(startDevServerEnv);
  });
  after(async () => stopJobsTestEnv(jobsEnv ?? {}));

  it('cancels a send-email job while the SMTP server holds the DATA phase open: the transaction is aborted and no message is ever accepted', async () => {
    const { env, bundle, testDb } = jobsEnv;
    const smtp = await startSmtpServer(undefined, { holdData: () => Infinity });
    const taskQueue = uniqueId('tq-cancel');
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const deps = { ...testActivityDeps(testDb.db, { reportsDir: outboxDir }), email: { smtpUrl: smtp.url, outboxDir, from: 'jobs@test', smtpTimeoutMs: 600_000 } };
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps) });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    try {
      await worker.runUntil(async () => {
        const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('cancel-email') });
        await until('the server holds the DATA command', () => smtp.holding() === 1);
        // The SMTP timeouts are far away: only the cancellation can end this attempt.
        await jobs.cancel(id);
        const err = await handle.result().catch((e: unknown) => e);
        assert.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, `the job ends cancelled, got ${String(err)}`);
        assert.equal(smtp.abandoned(), 1, 'the worker closed its connection in the middle of the transaction');
        // What a server that finally says "go ahead" would have done with a client still waiting.
        smtp.release();
        // Nothing may arrive in this window: the job is closed and its connection gone (above), and a
        // message the server still took would land in milliseconds on loopback.
        await new Promise((r) => setTimeout(r, 1000));
        assert.equal(smtp.received.length, 0, 'the server accepted no message');
        assert.equal(smtp.attempts(), 1, 'and no retry sent one');
        assert.equal((await jobs.get(id)).status, 'cancelled');
      });
    } finally {
      await smtp.close();
    }
  });
  it('reports the attempts a job made when it is cancelled while it waits to retry', async () => {
    const { env, bundle, testDb } = jobsEnv;
    const smtp = await startSmtpServer(() => ({ code: 451, message: 'greylisted' }));
    const taskQueue = uniqueId('tq-cancel-retry');
    const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
    const deps = { ...testActivityDeps(testDb.db, { reportsDir: outboxDir }), email: { smtpUrl: smtp.url, outboxDir, from: 'jobs@test' } };
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps) });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    try {
      await worker.runUntil(async () => {
        const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('cancel-retrying') });
        // The schedule is 1s, 5s, …: after the second failure the job waits 5s for its third attempt.
        await until('the second attempt has failed', async () => {
          const r = await jobs.get(id);
          return r.status === 'retrying' && r.attempts === 2;
        });
        await jobs.cancel(id);
        await handle.result().catch(() => undefined);
        const record = await jobs.get(id);
        assert.equal(record.status, 'cancelled');
        assert.equal(smtp.attempts(), 2);
        assert.equal(record.attempts, 2, 'the attempts it made, not 0');
        assert.equal(record.error?.type, 'send-email:smtp-transient', 'and why the last one failed');
      });
    } finally {
      await smtp.close();
    }
  });
});
