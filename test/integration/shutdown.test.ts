import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { JobClient } from '../../src/client/job-client';
import { uniqueId } from '../helpers/env';
import type { Started } from '../helpers/processes';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, until, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

const payload = { to: 'ada@example.com', subject: 'Shutdown', body: 'Exactly once', userId: 'u-shutdown' };

/** Messages the SMTP server accepted for a job, by its Message-ID (headers unfolded: a long one spans lines). */
const deliveriesOf = (smtp: TestSmtpServer, id: string) =>
  smtp.received.filter((m) => m.raw.replace(/\r?\n[ \t]+/g, ' ').includes(`Message-ID: <${encodeURIComponent(id)}@durable-jobs>`)).length;

// Real processes and real signals: `node dist/worker/main.js` (what `npm run worker` and the image
// run) against a real dev server, a real SMTP server whose DATA phase makes the attempt take
// seconds, and the side effect counted where it lands: messages the SMTP server accepted.
describe('graceful shutdown with real worker processes and signals', function () {
  this.timeout(600_000);
  let temporal: TestTemporal;
  let smtp: TestSmtpServer | undefined;
  let jobs: JobClient | undefined;
  const workers: Started[] = [];

  before(async () => {
    temporal = await startTestTemporal();
  });
  after(async () => temporal?.stop());
  afterEach(async () => {
    for (const worker of workers.splice(0)) await killIfRunning(worker);
    await jobs?.close();
    jobs = undefined;
    await smtp?.close();
    smtp = undefined;
  });

  /** A fresh task queue and data directory, sending to `smtp`. */
  async function setup(extra: NodeJS.ProcessEnv = {}): Promise<{ env: WorkerEnv; worker: () => Promise<Started> }> {
    const env: WorkerEnv = {
      temporal,
      taskQueue: uniqueId('tq-shutdown'),
      dataDir: await mkdtemp(path.join(os.tmpdir(), 'worker-data-')),
      extra: { SMTP_URL: smtp!.url, ...extra },
    };
    jobs = await jobClientFor(env);
    return { env, worker: async () => workers[workers.push(await startWorkerProcess(env)) - 1]! };
  }

  it('test 1: SIGTERM mid-activity lets the attempt finish within SHUTDOWN_GRACE_TIME; the job completes on a second worker, its email sent once', async () => {
    smtp = await startSmtpServer(undefined, { holdData: (attempt) => (attempt === 1 ? 4000 : undefined) });
    const { worker } = await setup({ SHUTDOWN_GRACE_TIME: '60s' });
    const first = await worker();
    const { id, handle } = await jobs!.enqueue('send-email', payload, { id: uniqueId('sigterm') });
    await until('the attempt is in the middle of its SMTP transaction', () => smtp!.holding() === 1);

    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    assert.match(first.output(), /worker:stopped/);
    assert.equal(deliveriesOf(smtp, id), 1, 'the stopping worker finished the in-flight send before it exited');

    await worker();
    await handle.result();
    assert.equal((await jobs!.get(id)).status, 'completed');
    assert.equal(deliveriesOf(smtp, id), 1, 'exactly one message');
    assert.equal(smtp.attempts(), 1, 'no second attempt');
  });

  it('test 1b: SIGTERM with an attempt that outlasts the grace time cancels it before the final dot; the retry on a second worker sends the only copy', async () => {
    smtp = await startSmtpServer(undefined, { holdData: (attempt) => (attempt === 1 ? Infinity : undefined) });
    const { worker } = await setup({ SHUTDOWN_GRACE_TIME: '2s' });
    const first = await worker();
    const { id, handle } = await jobs!.enqueue('send-email', payload, { id: uniqueId('sigterm-grace') });
    await until('the attempt is in the middle of its SMTP transaction', () => smtp!.holding() === 1);

    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    assert.equal(smtp.abandoned(), 1, 'the cancelled attempt closed its connection mid-transaction');
    smtp.release();
    // Nothing may arrive in this window: the connection is closed already (abandoned, above), and a
    // message the server still took would land in milliseconds on loopback.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(deliveriesOf(smtp, id), 0, 'nothing half-sent was accepted');

    await worker();
    await handle.result();
    assert.equal(deliveriesOf(smtp, id), 1, 'exactly one message');
    assert.equal(smtp.attempts(), 2);
    assert.equal((await jobs!.get(id)).attempts, 2);
  });

  it('test 2: SIGKILL mid-activity; the job completes on a second worker after its heartbeat timeout, its email sent once', async () => {
    smtp = await startSmtpServer(undefined, { holdData: (attempt) => (attempt === 1 ? Infinity : undefined) });
    const { worker } = await setup();
    const first = await worker();
    const { id, handle } = await jobs!.enqueue('send-email', payload, { id: uniqueId('sigkill') });
    await until('the attempt is in the middle of its SMTP transaction', () => smtp!.holding() === 1);

    first.child.kill('SIGKILL');
    await first.exited;
    await until('the dead worker’s connection is gone', () => smtp!.abandoned() === 1, 10_000);
    smtp.release();
    assert.equal(deliveriesOf(smtp, id), 0);

    await worker();
    await handle.result();
    assert.equal(deliveriesOf(smtp, id), 1, 'exactly one message');
    assert.equal(smtp.attempts(), 2);
    const record = await jobs!.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 2, 'the second attempt, after the heartbeat timeout');
  });

  it('test 3: the dev server is stopped and restarted mid-run; the queued and running jobs all complete', async () => {
    smtp = await startSmtpServer(undefined, { holdData: (attempt) => (attempt <= 3 ? 3000 : undefined) });
    const { env, worker } = await setup();
    const running = await worker();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await jobs!.enqueue('send-email', payload, { id: uniqueId(`running-${i}`) })).id);
    for (let i = 0; i < 3; i++) ids.push((await jobs!.enqueue('send-email', payload, { id: uniqueId(`queued-${i}`), delay: '5s' })).id);
    await until('attempts are in the middle of their SMTP transactions', () => smtp!.holding() >= 1);

    await temporal.stop();
    // The outage's length is the fault itself, not a wait for progress: 3 s of failing polls and heartbeats.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(running.child.exitCode, null, 'the worker outlives the outage');
    await temporal.start();

    await jobs!.close();
    jobs = await jobClientFor(env);
    for (const id of ids) {
      await until(`job ${id} completes`, async () => (await jobs!.get(id)).status === 'completed', 180_000);
      // At least once across an outage (an accepted message whose completion was lost is sent again), never zero.
      assert.ok(deliveriesOf(smtp, id) >= 1, `job ${id} delivered its message`);
    }
    assert.equal(running.child.exitCode, null, running.output());
  });
});
