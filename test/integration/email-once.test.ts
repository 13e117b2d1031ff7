import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { JobClient } from '../../src/client/job-client';
import { openDatabase } from '../../src/db/database';
import { ledgerSteps } from '../../src/activity-kit/ledger';
import type { SendEmailResult } from '../../src/jobs/send-email';
import { startFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy';
import { uniqueId } from '../helpers/env';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import type { Started } from '../helpers/processes';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, until, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

/** Messages the SMTP server accepted for a job, by its Message-ID (headers unfolded: a long one spans lines). */
const deliveriesOf = (smtp: TestSmtpServer, id: string) =>
  smtp.received.filter((m) => m.raw.replace(/\r?\n[ \t]+/g, ' ').includes(`Message-ID: <${encodeURIComponent(id)}@durable-jobs>`)).length;

// The one window in which an email could be sent twice used to be everything between the relay's
// "250 accepted" and Temporal recording the attempt's completion. The worker now records the send in
// its ledger right after the reply. Here the relay holds its reply to the final "." while the
// worker's connection to Temporal is frozen; then the reply goes out, the worker records the send,
// its completion never reaches Temporal, and it is SIGKILLed. The retry, on another worker, finds
// the record and sends nothing: one delivery.
describe('a sent email is recorded and not sent again (real dev server, worker processes, SMTP)', function () {
  this.timeout(300_000);
  let temporal: TestTemporal;
  let smtp: TestSmtpServer | undefined;
  let proxy: FreezableProxy | undefined;
  let jobs: JobClient | undefined;
  const workers: Started[] = [];

  before(async () => {
    temporal = await startTestTemporal();
  });
  after(async () => {
    await Promise.all(workers.map(killIfRunning));
    await jobs?.close();
    await proxy?.close();
    await smtp?.close();
    await temporal?.stop();
  });

  it('a worker SIGKILLed after the relay accepted and before Temporal heard of it: the retry finds the record and the message is delivered once', async () => {
    smtp = await startSmtpServer(undefined, { holdReply: (attempt) => (attempt === 1 ? Infinity : undefined) });
    proxy = await startFreezableProxy(temporal.address);
    const env: WorkerEnv = { temporal, taskQueue: uniqueId('tq-email-once'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'email-once-')), extra: { SMTP_URL: smtp.url } };
    jobs = await jobClientFor(env);
    // The first worker reaches Temporal through the proxy only.
    const first = await startWorkerProcess({ ...env, temporal: { ...temporal, address: proxy.address } });
    workers.push(first);
    const id = uniqueId('email-once');
    await jobs.enqueue('send-email', { to: 'ada@example.com', subject: 'Once', body: 'hello', userId: 'u-1' }, { id });
    await until('the relay has the message and holds its reply', () => smtp!.holding() === 1 && deliveriesOf(smtp!, id) === 1);

    proxy.freeze();
    const repliedAt = Date.now();
    smtp.release();
    const db = openDatabase(path.join(env.dataDir, 'jobs.db'));
    try {
      await until('the worker recorded the send in its ledger', async () => (await ledgerSteps(db, id)).some((s) => s.step === 'send'));
      console.log(`      the send was recorded within ${Date.now() - repliedAt} ms of the relay's reply (polled every 100 ms)`);
    } finally {
      await db.destroy();
    }
    first.child.kill('SIGKILL');
    await first.exited;

    workers.push(await startWorkerProcess(env));
    const result = (await jobs.result(id)) as SendEmailResult;
    assert.equal(result.alreadySent, true, 'the retry found the record and sent nothing');
    assert.equal(deliveriesOf(smtp, id), 1, 'one delivery');
    assert.equal(smtp.attempts(), 1, 'no second SMTP transaction');
    assert.equal((await jobs.get(id)).attempts, 2, 'the first attempt\'s completion was lost: Temporal ran a second');
  });
});
