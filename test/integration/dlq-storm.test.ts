import assert from 'node:assert/strict';
import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { sendDeadLetters } from '../../src/activity-kit/dead-letter';
import { HandOffBatcher } from '../../src/activity-kit/hand-off-batcher';
import { deadLetterShardOf, deadLetterShardWorkflowId } from '../../src/catalog/dead-letter-shards';
import { JobClient } from '../../src/client/job-client';
import type { DeadLetterInput } from '../../src/workflow-kit/dead-letter-entries';
import { catalog } from '../../src/jobs/catalog';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { type TestDb } from '../helpers/db';
import { dlqRunFigures, jobctlMaxRss, runStorm } from '../helpers/dlq-storm';
import { waitFor } from '../helpers/dlq';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';

/** Payments that fail in the storm: a small one in `npm test`, 20,000 under `npm run soak:dlq`. */
const stormJobs = Number(process.env.STORM_JOBS ?? 800);

// A provider that rejects everything: every payment to an unknown account fails for good at its
// first step, as fast as the worker can run them, while an operator lists, groups, pages and
// redrives the DLQ. On a real dev server: the time-skipping one enforces none of Temporal's limits.
describe(`failure storm: ${stormJobs} payments fail for good at once (real dev server)`, function () {
  this.timeout((10 + stormJobs / 8 / 60) * 60_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
    await seedDemoAccounts(testDb.db);
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  it('puts every failed job in the DLQ exactly once, leaves none Running, keeps each DLQ run far below Temporal\'s limits, and serves the operator throughout', async () => {
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    await worker.runUntil(runStorm({ client: env.client, jobs, taskQueue, jobctlEnv: { TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue } }, stormJobs));
  });

  it('takes the hand-offs of a whole storm at once through the batcher, into every shard: what the DLQ itself sustains', async () => {
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    // As many hand-offs as the storm's jobs, all submitted at once to one worker's batcher, as the
    // hand-off activities of a worker do (without the jobs that would produce them).
    const batcher = new HandOffBatcher<DeadLetterInput>({ send: (workflowId, entries) => sendDeadLetters(env.client, taskQueue, workflowId, entries) });
    const started = Date.now();
    await worker.runUntil(async () => {
      await Promise.all(Array.from({ length: stormJobs }, (_, i) => {
        const id = `sustain-${i}`;
        const entry: DeadLetterInput = {
          id, type: 'process-payment', runId: `run-${id}`, payload: { paymentId: id, fromAccount: 'alice', toAccount: 'nobody', amount: 1, currency: 'EUR' },
          attempts: 1, failedAt: new Date().toISOString(), error: { type: 'process-payment:unknown-account', message: 'account "nobody" does not exist' },
          fingerprint: 'f-sustain', fingerprintText: 'process-payment:unknown-account: account <str> does not exist',
        };
        return batcher.submit(deadLetterShardWorkflowId(taskQueue, 'process-payment', deadLetterShardOf(id)), entry);
      }));
      const sent = (Date.now() - started) / 1000;
      const counts = await waitFor(() => jobs.deadLetters.counts(), (c) => c['process-payment']?.['dead-lettered'] === stormJobs, 120_000);
      const applied = (Date.now() - started) / 1000;
      const figures = await dlqRunFigures(env.client, taskQueue, 'process-payment');
      const jobctlEnv = { TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue };
      const onePage = await jobctlMaxRss(jobctlEnv, ['dlq', 'list', '--limit', '1', '--json']);
      const dryStarted = Date.now();
      const wholeGroup = await jobctlMaxRss(jobctlEnv, ['dlq', 'redrive', '--fingerprint', 'f-sustain', '--dry-run', '--json']);
      const drySeconds = (Date.now() - dryStarted) / 1000;
      console.log(`      sustained: ${stormJobs} hand-offs sent in ${sent.toFixed(1)} s and applied in ${applied.toFixed(1)} s (${(stormJobs / applied).toFixed(0)}/s); ` +
        `${figures.runs} runs over ${figures.workflows} shards; largest run ${figures.maxEvents} events, ${figures.maxSignals} signals; ` +
        `jobctl peak RSS ${(onePage.maxRssKb / 1024).toFixed(0)} MiB for one entry, ${(wholeGroup.maxRssKb / 1024).toFixed(0)} MiB for a dry run of all ${stormJobs} in ${drySeconds.toFixed(1)} s`);
      assert.equal(wholeGroup.lines, stormJobs + 3, 'the dry run printed every entry (and the brackets)');
      assert.ok(wholeGroup.maxRssKb <= onePage.maxRssKb + 64 * 1024, `jobctl's memory stays bounded: ${wholeGroup.maxRssKb} KiB against ${onePage.maxRssKb} KiB`);

      // And for real: the whole group discarded by one command, one update per entry.
      const discardStarted = Date.now();
      const discarded = await jobctlMaxRss(jobctlEnv, ['dlq', 'discard', '--fingerprint', 'f-sustain', '--reason', 'storm: refunded by hand', '--json']);
      const discardSeconds = (Date.now() - discardStarted) / 1000;
      const after = (await jobs.deadLetters.counts())['process-payment']!;
      console.log(`      discarded: all ${stormJobs} by fingerprint in ${discardSeconds.toFixed(0)} s (${(stormJobs / discardSeconds).toFixed(0)}/s), jobctl peak RSS ${(discarded.maxRssKb / 1024).toFixed(0)} MiB`);
      assert.deepEqual([after['dead-lettered'], after.discarded], [0, stormJobs]);
      assert.ok(discarded.maxRssKb <= onePage.maxRssKb + 64 * 1024, `jobctl's memory stays bounded: ${discarded.maxRssKb} KiB`);
      assert.equal(counts['process-payment']?.['dead-lettered'], stormJobs, 'every hand-off applied once');
      assert.ok(figures.maxSignals <= 2200, `signals per run ${figures.maxSignals}`);
    });
  });
});
