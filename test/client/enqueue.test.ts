import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { JobClient } from '../../src/client/job-client';
import { ErrorType, IdConflictError } from '../../src/shared/errors';
import { startTimeSkippingEnv, uniqueId } from '../helpers/env';
import { catalog } from '../../src/jobs/catalog';

const email = { to: 'ada@example.com', subject: 'Hello', body: 'Hi', userId: 'u1' };

// No worker: these tests only start jobs (they wait on a task queue nobody polls) and compare them.
describe('enqueue: idempotency and ID conflicts', function () {
  let env: TestWorkflowEnvironment;
  let jobs: JobClient;

  before(async () => {
    env = await startTimeSkippingEnv();
    jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
  });
  after(async () => env?.teardown());

  it('returns the existing job for the same payload, whatever its key order or spelled-out defaults', async () => {
    const id = uniqueId('same');
    const template = { to: 'ada@example.com', subject: 'Hello', template: { name: 'welcome' as const, vars: { name: 'Ada' } }, userId: 'u1' };
    assert.equal((await jobs.enqueue('send-email', template, { id })).existed, false);
    const reordered = { userId: 'u1', template: { vars: { name: 'Ada' }, name: 'welcome' as const }, subject: 'Hello', to: 'ada@example.com' };
    assert.equal((await jobs.enqueue('send-email', reordered, { id })).existed, true);
    const noop = uniqueId('same-noop');
    assert.equal((await jobs.enqueue('noop', {}, { id: noop })).existed, false);
    assert.equal((await jobs.enqueue('noop', { failAttempts: 0 }, { id: noop })).existed, true, 'a default spelled out is the same payload');
  });

  it('rejects a different payload under a used ID with jobs:id-conflict naming the ID, and starts nothing', async () => {
    const id = uniqueId('conflict');
    const first = await jobs.enqueue('send-email', email, { id });
    const runId = (await first.handle.describe()).runId;
    const err = await jobs.enqueue('send-email', { ...email, subject: 'Other' }, { id }).catch((e: unknown) => e);
    assert.ok(err instanceof IdConflictError);
    assert.equal(err.type, ErrorType.IdConflict);
    assert.match(err.message, new RegExp(`job ID "${id}" is already used by a job with a different payload`));
    assert.equal((await first.handle.describe()).runId, runId, 'no new run started');
    assert.deepEqual((await jobs.get(id)).payload, email, 'the job keeps its first payload');
  });

  it('names the other job type when the ID belongs to one', async () => {
    const id = uniqueId('other-type');
    await jobs.enqueue('send-email', email, { id });
    const err = await jobs.enqueue('sync-data', { source: 'customers' }, { id }).catch((e: unknown) => e);
    assert.ok(err instanceof IdConflictError);
    assert.match(err.message, /already used by a send-email job/);
  });

  it('derives the job ID from the payload when the type declares an idempotency key', async () => {
    const paymentId = uniqueId('pay');
    const payment = { paymentId, fromAccount: 'alice', toAccount: 'bob', amount: 100, currency: 'EUR' };
    const first = await jobs.enqueue('process-payment', payment);
    assert.equal(first.id, `payment:${paymentId}`);
    assert.equal((await jobs.enqueue('process-payment', payment)).existed, true);
  });
});
