import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from '../../src/activities';
import { catalog } from '../../src/jobs/catalog';
import { builtInMigrations } from '../../src/jobs/database/migrations';
import type { Db } from '../../src/jobs/database/schema';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { SendEmailErrorType } from '../../src/jobs/send-email';
import { nonRetryable } from '../../src/shared/failures';
import { startJobTestKit, type JobTestKit } from '../../src/testing';
import { uniqueId } from '../helpers/env';

// The kit as a team uses it (durable-jobs/testing), here over the built-in catalog: a time-skipping
// server with the library's DLQ and interceptors, the catalog's activities, a migrated database.
describe('the test kit (startJobTestKit)', function () {
  this.timeout(180_000);
  let kit: JobTestKit<(typeof catalog)['payloads']>;
  const email = () => ({ to: 'ada@example.com', subject: 'Kit', body: 'Hello', userId: uniqueId('u') });

  before(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kit-'));
    kit = await startJobTestKit({
      catalog,
      workflowsPath: require.resolve('../../src/workflows'),
      database: { migrations: builtInMigrations },
      activities: ({ db }) => createActivities({ db: db as Db, email: { outboxDir: dir, from: 'jobs@test' }, reportsDir: dir }),
    });
    await seedDemoAccounts(kit.db as Db);
  });
  after(() => kit?.close());

  it('runs a job to completion and returns its record', async () => {
    const record = await kit.runJob('send-email', email());
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 1);
    assert.equal(record.type, 'send-email');
  });

  it('injects failing attempts: the job retries on its schedule and completes', async () => {
    kit.failActivity('sendEmail', { attempts: 2 });
    const record = await kit.runJob('send-email', email());
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 3);
    assert.equal(record.maxAttempts, 6);
  });

  it('a non-retryable failure dead-letters the job, and the DLQ entry reads back', async () => {
    kit.failActivity('sendEmail', { attempts: 10, error: () => nonRetryable(SendEmailErrorType.SmtpRejected, '550 mailbox unavailable') });
    const record = await kit.runJob('send-email', email());
    assert.equal(record.status, 'failed');
    assert.equal(record.error?.type, SendEmailErrorType.SmtpRejected);
    const entry = await kit.deadLetter(record.id);
    assert.equal(entry?.status, 'dead-lettered');
    assert.equal(entry?.error.type, SendEmailErrorType.SmtpRejected);
    kit.failActivity('sendEmail', { attempts: 0 });
  });

  it("asserts on the ledger: a payment's steps ran once each", async () => {
    const record = await kit.runJob('process-payment', { paymentId: uniqueId('pay'), fromAccount: 'alice', toAccount: 'bob', amount: 100, currency: 'EUR' });
    assert.equal(record.status, 'completed');
    assert.deepEqual(new Set((await kit.ledger(record.id)).map((s) => s.step)), new Set(['reserve', 'capture', 'release']));
  });

  it('names an activity the catalog has none of', () => {
    assert.throws(() => kit.failActivity('sendSms'), /no activity named sendSms \(known: .*sendEmail/);
  });
});
