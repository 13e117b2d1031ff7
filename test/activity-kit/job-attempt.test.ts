import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { currentJob } from '../../src/activity-kit/job-attempt';

describe('the job of an activity attempt (currentJob)', () => {
  it('is seen by every copy of the library in the process (a worker from its build, activities from its sources)', async () => {
    const path = require.resolve('../../src/activity-kit/job-attempt');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a second instance of the module, on purpose
    const first = require(path) as typeof import('../../src/activity-kit/job-attempt');
    delete require.cache[path];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
    const second = require(path) as typeof import('../../src/activity-kit/job-attempt');
    assert.notEqual(first.currentJob, second.currentJob, 'two module instances');
    const seen = await new MockActivityEnvironment().run(async () => {
      first.recordJobAttempt(Context.current(), { jobId: 'job-1', jobType: 't', execution: 'run-1', attempt: 1, headed: true });
      return second.currentJob();
    });
    assert.deepEqual(seen, { jobId: 'job-1', jobType: 't', execution: 'run-1', attempt: 1, headed: true });
  });

  it('names the way out when an activity runs on a worker without the job interceptor', async () => {
    await assert.rejects(new MockActivityEnvironment().run(async () => currentJob()), /currentJob\(\) is called in an activity of a catalog job/);
  });
});
