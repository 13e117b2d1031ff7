import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import type { JobClient } from '../../src/client/job-client';
import { uniqueId, repoRoot } from '../helpers/env';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { startSwitchableRelay, type SwitchableRelay } from '../helpers/switchable-relay';
import { freePort, runCommand, type Started } from '../helpers/processes';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, until, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deliveries per Message-ID (headers unfolded). */
function deliveries(smtp: TestSmtpServer): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of smtp.received) {
    const id = /Message-ID: <([^>]+)>/i.exec(m.raw.replace(/\r?\n[ \t]+/g, ' '))?.[1];
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** How long ago a workflow poll of the shared queue last began, as the server reports it. */
async function lastWorkflowPollAgoMs(jobs: JobClient, taskQueue: string): Promise<number> {
  const { pollers } = await jobs.temporal.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL }, taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW });
  const last = Math.max(0, ...(pollers ?? []).map((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000));
  return Date.now() - last;
}

/** The smtp breaker's gauge on a worker's metrics endpoint. */
async function breakerGauge(metricsPort: number): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('jobs_breaker_state{') && l.includes('dependency="smtp"'));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

// The built-in send-email names the `smtp` dependency (5 counted failures within 30 s open its
// breaker; 10 s cool-down, doubled after each failed probe). The relay here is a front door that
// resets every connection while down, counting them: those are the attempts made against it.
describe('a dependency’s circuit breaker (real dev server, two worker processes, SMTP)', function () {
  this.timeout(600_000);
  let temporal: TestTemporal;
  let smtp: TestSmtpServer | undefined;
  let relay: SwitchableRelay | undefined;
  let jobs: JobClient | undefined;
  const workers: Started[] = [];

  before(async () => {
    temporal = await startTestTemporal();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map(killIfRunning));
    await jobs?.close();
    await relay?.close();
    await smtp?.close();
    jobs = relay = smtp = undefined;
  });
  after(async () => {
    await temporal?.stop();
  });

  it('a relay down for 60 s while 500 emails are queued: attempts against it stay at the threshold plus the probes, none is dead-lettered, all 500 are delivered once after it recovers', async () => {
    smtp = await startSmtpServer();
    relay = await startSwitchableRelay(smtp.url);
    const env: WorkerEnv = { temporal, taskQueue: uniqueId('tq-breaker'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'breaker-')), extra: { SMTP_URL: relay.url, METRICS_SAMPLE_INTERVAL: '1s' } };
    jobs = await jobClientFor(env);
    const metricsPort = await freePort();
    workers.push(await startWorkerProcess({ ...env, extra: { ...env.extra, METRICS_PORT: String(metricsPort) } }), await startWorkerProcess(env));
    // The workers have sent mail (every slot open to the relay), then sat idle for longer than the
    // breaker's 30 s window: the outage finds them taking one attempt at a time again.
    const warm = Array.from({ length: 10 }, (_, i) => ({ id: uniqueId(`warm-${i}`), payload: { to: `warm${i}@example.com`, subject: 'Before', body: `message ${i}`, userId: `w-${i}` } }));
    await jobs.enqueueMany('send-email', warm);
    await Promise.all(warm.map(({ id }) => jobs!.result(id)));
    await sleep(31_000);
    relay.down();
    const downAt = Date.now();
    const items = Array.from({ length: 500 }, (_, i) => ({ id: uniqueId(`breaker-${i}`), payload: { to: `user${i}@example.com`, subject: 'Outage', body: `message ${i}`, userId: `u-${i}` } }));
    const enqueued = await jobs.enqueueMany('send-email', items);
    assert.equal(enqueued.counts.started, 500);
    await until('the breaker opened', async () => (await jobs!.breakers.get('smtp')).state === 'open', 60_000);
    const openedAfter = relay.refused();
    await until('the workers\' gauge shows it open', async () => (await breakerGauge(metricsPort)) === 2, 30_000);
    await sleep(Math.max(0, 60_000 - (Date.now() - downAt)));
    const duringOutage = relay.refused();
    relay.up();
    const view = await jobs.breakers.get('smtp');
    const probes = view.changes.filter((c) => c.to === 'half-open').length;
    console.log(`      attempts against the relay while down: ${duringOutage} (${openedAfter} until the breaker opened, then ${probes} probe(s)); the breaker: ${view.state} since ${view.since} (${view.why})`);

    await until('all 500 emails were delivered', () => deliveries(smtp!).size === 510, 300_000);
    await until('the breaker closed', async () => (await jobs!.breakers.get('smtp')).state === 'closed', 60_000);
    const counts = deliveries(smtp);
    assert.equal(counts.size, 510, 'the 10 before and the 500 during the outage');
    assert.deepEqual([...counts.values()].filter((n) => n !== 1), [], 'every email delivered once');
    await until('every job ended', async () => (await Promise.all(items.map(async ({ id }) => jobs!.get(id)))).every((r) => r.status !== 'running' && r.status !== 'retrying'), 120_000);
    const records = await Promise.all(items.map(async ({ id }) => jobs!.get(id)));
    const extraAttempts = records.reduce((n, r) => n + r.attempts - 1, 0);
    assert.deepEqual(records.filter((r) => r.status !== 'completed').map((r) => `${r.id}: ${r.status}`), [], 'every job completed; none dead-lettered');
    assert.equal((await jobs.deadLetters.counts())['send-email']?.['dead-lettered'] ?? 0, 0);
    // Each attempt beyond a job's first failed against the relay: none was used up by the open breaker.
    assert.equal(extraAttempts, duringOutage, 'the retries the jobs used are the connections the relay refused');
    // Two workers, idle past the window since their last success, each take one attempt at a time;
    // once a failure is counted, each attempt waits for the breaker to admit it, one at a time across
    // both: none is in flight as the threshold is reached, and the one waiting then is the probe.
    assert.ok(duringOutage <= 5 + probes, `${duringOutage} attempts against the relay during the outage, threshold 5 + ${probes} probe(s)`);
    assert.ok(probes >= 1, 'a probe ran during the outage and failed');
  });

  it('a job type\'s own business failures (550) never open its breaker; an operator holds it open and closes it, recorded', async () => {
    smtp = await startSmtpServer((attempt) => (attempt <= 20 ? { code: 550, message: 'mailbox unavailable' } : undefined));
    const env: WorkerEnv = { temporal, taskQueue: uniqueId('tq-breaker-550'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'breaker-550-')), extra: { SMTP_URL: smtp.url } };
    jobs = await jobClientFor(env);
    workers.push(await startWorkerProcess(env));
    const rejected = Array.from({ length: 20 }, (_, i) => ({ id: uniqueId(`rejected-${i}`), payload: { to: `user${i}@example.com`, subject: 'No', body: 'x', userId: `u-${i}` } }));
    await jobs.enqueueMany('send-email', rejected);
    await until('all 20 failed', async () => (await Promise.all(rejected.map(({ id }) => jobs!.get(id)))).every((r) => r.status === 'failed'), 120_000);
    const view = await jobs.breakers.get('smtp');
    assert.equal(view.state, 'closed');
    assert.equal(view.opened, 0, '550s are the messages\' own failures: not counted');

    const cli = (...args: string[]) => runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), ...args], { ...process.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: env.taskQueue, DURABLE_JOBS_CATALOG: path.join(repoRoot, 'dist/jobs/catalog.js'), JOBCTL_USER: 'ops-ada' });
    // The worker idles: its pollers wait in long polls, whose last access the server reports as
    // their start (up to a minute old). An order must still find it (a new user's first order
    // on an idle npm start was refused: jobs:breaker-no-worker).
    await until('the worker idles in a long poll begun over 25 s ago', async () => (await lastWorkflowPollAgoMs(jobs!, env.taskQueue)) > 25_000, 120_000);
    const opened = await cli('breaker', 'open', 'smtp', '--reason', 'relay maintenance');
    assert.equal(opened.code, 0, opened.stderr);
    assert.match(opened.stdout, /smtp: open since .*ordered by an operator: relay maintenance.*held open by ops-ada/);
    const held = uniqueId('held');
    await jobs.enqueue('send-email', { to: 'held@example.com', subject: 'Held', body: 'x', userId: 'u-h' }, { id: held });
    await sleep(5000);
    assert.equal((await jobs.get(held)).attempts, 0, 'no attempt starts while held open');
    const closed = await cli('breaker', 'close', 'smtp', '--reason', 'maintenance over');
    assert.equal(closed.code, 0, closed.stderr);
    await jobs.result(held);
    const listed = await cli('breakers');
    assert.match(listed.stdout, /closed → open by ops-ada: ordered by an operator: relay maintenance/);
    assert.match(listed.stdout, /open → closed by ops-ada: ordered by an operator: maintenance over/);
    const bad = await cli('breaker', 'open', 'no-such-dependency');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /dependency: no preset of the catalog names no-such-dependency \(its dependencies: smtp\)/);
    for (const reason of ['   ', 'line one\nclosed → open by admin: forged']) {
      const refused = await cli('breaker', 'open', 'smtp', '--reason', reason);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /reason: must be 1 to 200 characters on one line/);
    }

    // No worker polls the shared queue: an order would wait on the server and apply whenever one
    // came back, so it is refused at once and nothing changes.
    await Promise.all(workers.splice(0).map(killIfRunning));
    await sleep(21_000);
    const unserved = await cli('breaker', 'open', 'smtp', '--reason', 'nobody home');
    assert.equal(unserved.code, 1);
    assert.match(unserved.stderr, /jobs:breaker-no-worker: no worker has polled for \d+ s on the shared task queue .*nothing was changed/);
    assert.equal((await jobs.breakers.get('smtp')).state, 'closed');
  });
});
