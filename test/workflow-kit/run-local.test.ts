import assert from 'node:assert/strict';
import os from 'node:os';
import { createActivities } from '../../src/activities';
import { JobClient } from '../../src/client/job-client';
import { catalog } from '../../src/jobs/catalog';
import type { NoopResult } from '../../src/jobs/noop';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId, type JobsTestEnv } from '../helpers/env';
import { until } from '../helpers/worker-process';
import { testActivityDeps } from '../helpers/worker';

// The worker loads the library's workflow modules once per sandbox and shares them between the
// workflows it runs (src/worker/library-parts.ts), so what one job keeps (its state, its pause, its
// slot) must stay its own (src/workflow-kit/run-local.ts). Here one worker runs a paused job and,
// while it waits at its gate, jobs that are not paused: had the pause been a module's, shared, the
// others would have waited too, or their start would have let the paused job through.
describe('what a job keeps is its own, in a sandbox whose library modules its workflows share (dev server)', function () {
  this.timeout(180_000);
  let t: JobsTestEnv;
  before(async () => {
    t = await startJobsTestEnv(startDevServerEnv);
  });
  after(async () => {
    await stopJobsTestEnv(t ?? {});
  });

  it('a paused job keeps waiting while jobs of another type run and complete beside it in the same worker, then completes once resumed', async () => {
    const taskQueue = uniqueId('tq-run-local');
    const jobs = new JobClient(t.env.client, { catalog, taskQueue });
    const activities = createActivities(testActivityDeps(t.testDb.db, { reportsDir: os.tmpdir() }));
    const worker = await createTestWorker(t.env, t.bundle, { taskQueue, activities });
    await worker.runUntil(async () => {
      await jobs.pauses.pause('noop', { reason: 'run-local test', by: 'test', settleMs: 0 });
      try {
        const paused = await jobs.enqueue('noop', {}, { id: uniqueId('paused') });
        await until('the noop job waits at its pause gate', async () => (await jobs.get(paused.id)).paused !== undefined, 60_000);

        const others = [];
        for (let i = 0; i < 3; i += 1) {
          others.push(await jobs.enqueue('generate-report', { from: '2026-01-01', to: '2026-01-02', name: uniqueId(`report-${i}`) }, { id: uniqueId(`report-${i}`) }));
        }
        await Promise.all(others.map((o) => o.handle.result()));
        for (const o of others) {
          const record = await jobs.get(o.id);
          assert.equal(record.status, 'completed', `${o.id}: ${JSON.stringify(record)}`);
          assert.equal(record.paused, undefined);
          assert.equal(record.attempts, 1);
        }

        const waiting = await jobs.get(paused.id);
        assert.equal(waiting.status, 'running');
        assert.equal(waiting.paused?.reason, 'run-local test', 'the paused job still shows its own pause');
        assert.equal(waiting.attempts, 0, 'the paused job started no attempt while the others ran');

        await jobs.pauses.resume('noop', { by: 'test', settleMs: 0 });
        assert.deepEqual((await paused.handle.result()) as NoopResult, { attempt: 1 });
        // Its record is its own: noop's step and attempts limit, not the last report's (whose state
        // it would have ended with, and written to its memo, had the job state been shared).
        const done = await jobs.get(paused.id);
        assert.equal(done.status, 'completed');
        assert.deepEqual({ step: done.step, steps: done.steps, maxAttempts: done.maxAttempts, progress: done.progress }, { step: 'run', steps: ['run'], maxAttempts: 4, progress: undefined });
        const events = (await paused.handle.fetchHistory()).events ?? [];
        assert.ok(!events.some((e) => e.workflowPropertiesModifiedEventAttributes), 'it wrote no final-state memo: its end is what its outline says');
      } finally {
        await jobs.pauses.resume('noop', { by: 'test', settleMs: 0 }).catch(() => undefined);
      }
    });
  });
});
