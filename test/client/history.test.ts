import assert from 'node:assert/strict';
import os from 'node:os';
import { historyTail } from '../../src/client/history';
import { JobClient } from '../../src/client/job-client';
import { createTestWorker, type JobsTestEnv, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { makeRecords, startSyncSource, type TestSyncSource } from '../helpers/sync-source';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

// A real dev server: it serves the reverse-history call that keeps `jobctl status` cheap on a long
// history (the time-skipping server does not, and gets the whole history instead).
describe('job record on a long history (real dev server)', function () {
  this.timeout(180_000);
  let t: JobsTestEnv;
  let source: TestSyncSource;

  before(async () => {
    t = await startJobsTestEnv(startDevServerEnv);
    source = await startSyncSource();
  });
  after(async () => {
    await source?.close();
    await stopJobsTestEnv(t ?? {});
  });

  it('reads only the tail of the history, yet reports the attempts, state and first-run payload', async () => {
    const taskQueue = uniqueId('tq');
    const deps = testActivityDeps(t.testDb.db, { reportsDir: os.tmpdir(), syncSourceUrl: source.url });
    const worker = await createTestWorker(t.env, t.bundle, { taskQueue, activities: createActivities(deps) });
    const jobs = new JobClient(t.env.client, { catalog, taskQueue });
    source.setRecords('long', makeRecords(200));
    const payload = { source: 'long', pageSize: 1, pagesPerRun: 1000 };
    const { id, handle } = await jobs.enqueue('sync-data', payload);
    await worker.runUntil(handle.result());

    const { historyLength, runId } = await handle.describe();
    assert.ok(historyLength > 1000, `a long history (${historyLength} events)`);
    const tail = await historyTail(t.env.client, id, runId);
    // The server pages backwards in its own batches (about 200 events here), not exactly 100.
    assert.ok(tail.length < historyLength / 2, `read ${tail.length} of ${historyLength} events`);

    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 1);
    assert.deepEqual(record.progress, { done: 200, unit: 'pages' });
    assert.equal((record.payload as { source: string }).source, 'long');
  });
});
