import assert from 'node:assert/strict';
import { Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { jobWorkflowStart } from '../../src/catalog/start-job';
import { bundleJobWorkflows } from '../../src/testing/test-worker';
import { catalog as greetCatalog } from '../../bench/activity/catalog';
import { greetJob } from '../../bench/activity/greet';
import { createActivities as createGreetActivities } from '../../bench/activity/activities';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv } from '../helpers/env';
import { until } from '../helpers/worker-process';

interface LogLine {
  level: LogLevel;
  message: string;
  meta?: LogMetadata;
}

// What a job logs by default is paid on every job (issue 33 §2): a healthy job's start and
// completion are at debug (the metrics count them); a failure and its hand-off to the DLQ are not.
describe('a job’s lifecycle log lines (time-skipping): quiet at info when it completes, loud when it fails', function () {
  let t: JobsTestEnv;
  const lines: LogLine[] = [];
  const logger = Runtime.instance().logger;
  const log = logger.log;

  before(async () => {
    t = await startJobsTestEnv();
    // The runtime's logger receives every line before its level filter.
    logger.log = (level, message, meta) => {
      lines.push({ level, message, meta });
      log.call(logger, level, message, meta);
    };
  });
  after(async () => {
    logger.log = log;
    await stopJobsTestEnv(t ?? {});
  });

  const of = (jobId: string) => lines.filter((l) => l.meta?.jobId === jobId && l.message.startsWith('job:'));
  const atInfoOrAbove = (l: LogLine) => !['TRACE', 'DEBUG'].includes(l.level);

  it('a completed job logs job:start and job:completed at debug, and nothing of its own at info or above', async () => {
    const taskQueue = uniqueId('greet-logs');
    const worker = await createTestWorker(t.env, await bundleJobWorkflows(require.resolve('../../bench/activity/workflows')), { taskQueue, catalog: greetCatalog, activities: createGreetActivities() });
    const jobs = new JobClient(t.env.client, { catalog: greetCatalog, taskQueue });
    const id = await worker.runUntil(async () => {
      const started = await jobs.enqueue('greet', { name: 'Ada' });
      await started.handle.result();
      return started.id;
    });
    // Workflow log lines reach the runtime's logger through a sink, a moment after the result.
    await until('job:completed is logged', () => of(id).some((l) => l.message === 'job:completed'), 10_000);
    const mine = of(id);
    assert.deepEqual(mine.filter((l) => ['job:start', 'job:completed'].includes(l.message)).map((l) => [l.message, l.level]), [['job:start', 'DEBUG'], ['job:completed', 'DEBUG']]);
    assert.deepEqual(mine.filter(atInfoOrAbove).map((l) => l.message), [], 'no line of its own at info or above');
  });

  it('a failed job logs job:failed at error and job:dead-lettered at warn', async () => {
    const taskQueue = uniqueId('greet-logs-fail');
    const worker = await createTestWorker(t.env, await bundleJobWorkflows(require.resolve('../../bench/activity/workflows')), { taskQueue, catalog: greetCatalog, activities: createGreetActivities() });
    const id = uniqueId('greet-logs-fail');
    // A payload the client would refuse, started as an older client might have: refused for good.
    const { workflowType, options } = jobWorkflowStart({ definition: greetJob, id, payload: { name: 42 }, taskQueue, mode: 'enqueue' });
    await worker.runUntil(async () => {
      await assert.rejects(t.env.client.workflow.start(workflowType, options).then((handle) => handle.result()));
    });
    await until('job:dead-lettered is logged', () => of(id).some((l) => l.message === 'job:dead-lettered'), 10_000);
    const levels = Object.fromEntries(of(id).filter(atInfoOrAbove).map((l) => [l.message, l.level]));
    assert.equal(levels['job:failed'], 'ERROR');
    assert.equal(levels['job:dead-lettered'], 'WARN');
    assert.equal(levels['job:attempt-failed'], 'WARN');
  });
});
