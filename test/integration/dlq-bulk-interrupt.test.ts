import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobClient } from '../../src/client/job-client';
import { ownQueuesCatalog } from '../fixtures/own-queues/catalog';
import { handOver } from '../helpers/dead-letter-hand-offs';
import { startOwnQueuesWorker } from '../helpers/own-queues-worker';
import { repoRoot, uniqueId } from '../helpers/env';
import { startProcess, type Started } from '../helpers/processes';
import { killIfRunning, startTestTemporal, until, type TestTemporal } from '../helpers/worker-process';

/** Entries of the group the operator starts to discard. */
const entries = 40;

// An operator stops a slow bulk discard with Ctrl-C: every discard it sent must be on the screen
// (one had been applied 14 s before it was printed, and Ctrl-C hid seven applied redrives).
describe('a bulk DLQ operation interrupted with Ctrl-C (real dev server, worker process, jobctl)', function () {
  this.timeout(300_000);
  let temporal: TestTemporal;
  let jobs: JobClient<typeof ownQueuesCatalog.payloads>;
  let worker: Started | undefined;
  const taskQueue = uniqueId('dlq-interrupt');

  before(async () => {
    temporal = await startTestTemporal();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'dlq-interrupt-'));
    worker = await startOwnQueuesWorker(temporal.address, taskQueue, dataDir);
    jobs = await JobClient.connect({ catalog: ownQueuesCatalog, temporalAddress: temporal.address, taskQueue });
  });

  after(async () => {
    if (worker) await killIfRunning(worker);
    await jobs?.close();
    await temporal?.stop();
  });

  it('prints each discard as it is done, sends no other once interrupted, reports every one it sent, and exits 130', async () => {
    await handOver(jobs.temporal, taskQueue, 'brittle', 0, entries);
    await until(`${entries} entries are dead-lettered`, async () => (await jobs.deadLetters.counts()).brittle?.['dead-lettered'] === entries, 120_000);

    const jobctl = startProcess(
      process.execPath,
      [path.join(repoRoot, 'bin/jobctl.js'), 'dlq', 'discard', '--fingerprint', 'f-gone', '--rate', '2/s', '--reason', 'interrupted'],
      { ...process.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue },
      os.tmpdir(),
    );
    const printed = () => jobctl.output().split('\n').filter((l) => /^handed-\d+: discarded$/.test(l));
    // At 2 a second with up to 8 in flight, each line comes as its discard is done, not 8 later.
    await until('three discards are printed', async () => printed().length >= 3, 60_000);
    const appliedWhenThree = (await jobs.deadLetters.counts()).brittle?.discarded ?? 0;
    assert.ok(appliedWhenThree <= printed().length + 1, `${appliedWhenThree} applied when ${printed().length} were printed`);

    jobctl.child.kill('SIGINT');
    assert.equal(await jobctl.exited, 130, jobctl.output());
    const summary = /jobctl: SIGINT: (\d+) discarded, 0 failed, in [\d.]+ s; no other entry was sent/.exec(jobctl.output());
    assert.ok(summary, jobctl.output());
    const reported = printed();
    assert.equal(Number(summary[1]), reported.length);
    assert.ok(reported.length < entries, 'interrupted before the end');

    // Every discard applied was printed, and nothing is applied after the exit.
    await sleep(3000);
    const counts = (await jobs.deadLetters.counts()).brittle!;
    assert.equal(counts.discarded, reported.length, `${counts.discarded} applied, ${reported.length} printed:\n${jobctl.output()}`);
    assert.equal(counts['dead-lettered'], entries - reported.length);
  });
});
