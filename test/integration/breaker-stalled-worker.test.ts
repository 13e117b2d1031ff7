import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobClient } from '../../src/client/job-client';
import { repoRoot, uniqueId } from '../helpers/env';
import { startProcess, type Started } from '../helpers/processes';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

// A worker that stalls (stopped, swapping, a long GC pause) past the breaker's 10 s workflow task
// timeout: the server refuses updates while the breaker's task is failing ("Workflow Task in failed
// state"). An operator's order must wait that out and be applied once, not fail untyped and vanish.
describe('a breaker order while the only worker is stalled (real dev server, worker process, jobctl)', function () {
  this.timeout(300_000);
  let temporal: TestTemporal;
  let jobs: JobClient;
  let worker: Started | undefined;
  let env: WorkerEnv;

  before(async () => {
    temporal = await startTestTemporal();
    env = { temporal, taskQueue: uniqueId('tq-stalled'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'stalled-')) };
    jobs = await jobClientFor(env);
    worker = await startWorkerProcess(env);
  });

  after(async () => {
    worker?.child.kill('SIGCONT');
    if (worker) await killIfRunning(worker);
    await jobs?.close();
    await temporal?.stop();
  });

  it('waits while the worker is stopped for 40 s, says why after 20 s, and applies the order once when it resumes', async () => {
    // The breaker runs (and its worker has it cached) before the stall.
    assert.equal((await jobs.breakers.order('smtp', 'closed', { reason: 'warm up' })).state, 'closed');
    worker!.child.kill('SIGSTOP');
    const jobctl = startProcess(
      process.execPath,
      [path.join(repoRoot, 'bin/jobctl.js'), 'breaker', 'open', 'smtp', '--reason', 'stalled worker'],
      { ...process.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: env.taskQueue, DURABLE_JOBS_CATALOG: path.join(repoRoot, 'dist/jobs/catalog.js'), JOBCTL_USER: 'ops-ada' },
      repoRoot,
    );
    await jobctl.waitFor('has not taken the order after 20 s', 60_000);
    await sleep(15_000);
    worker!.child.kill('SIGCONT');
    assert.equal(await jobctl.exited, 0, jobctl.output());
    assert.match(jobctl.output(), /smtp: open since .*held open by ops-ada/);
    const view = await jobs.breakers.get('smtp');
    assert.equal(view.state, 'open');
    const orders = view.changes.filter((c) => /stalled worker/.test(c.why));
    assert.equal(orders.length, 1, `applied once: ${JSON.stringify(view.changes)}`);
  });
});
