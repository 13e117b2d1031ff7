import assert from 'node:assert/strict';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { JobClient, stateQueryTimeoutMs } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import { repoRoot, startDevServerEnv, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');

// No worker polls the task queue: the job runs, and nobody answers its state query.
describe('jobctl status and result of a job no worker answers for (real dev server)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let jobs: JobClient;

  before(async () => {
    env = await startDevServerEnv();
    jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('no-worker') });
  });
  after(async () => env?.teardown());

  const ctl = (args: string[]) => runCommand(process.execPath, [jobctl, ...args], { ...process.env, TEMPORAL_ADDRESS: env.address }, repoRoot);

  it('status of a running job no worker answers for comes back within the state query bound and says so; result --timeout 0 does not wait', async () => {
    const { id } = await jobs.enqueue('noop', {});
    const started = Date.now();
    const record = await jobs.get(id);
    const took = Date.now() - started;
    assert.equal(record.status, 'running');
    assert.equal(record.workersNotAnswering, true);
    assert.ok(took < stateQueryTimeoutMs + 1500, `took ${took} ms`);
    const ran = await ctl(['status', id]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /workers: +not answering/);
    const result = await ctl(['result', id, '--timeout', '0']);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`job ${id} has not finished; it goes on`));
  });
});
