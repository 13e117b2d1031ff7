import assert from 'node:assert/strict';
import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { jobWorkflowStart } from '../../src/catalog/start-job';
import { deadLetterShardOf, deadLetterShardWorkflowId } from '../../src/catalog/dead-letter-shards';
import { currentJobProtocol, jobProtocolMemoKey } from '../../src/shared/job-protocol';
import type { TestDb } from '../helpers/db';
import { deadLetterEntries, waitFor } from '../helpers/dlq';
import { createTestWorker, type TestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

const payload = (to: string) => ({ to, subject: 'Hello', body: 'Hi', userId: 'u1' });

// Every workflow started by this release calls the library's activities by their namespaced names;
// a workflow an earlier release started (no protocol in its start memo) calls the bare names its
// history already holds, which every worker still registers. The SMTP server refuses every message
// (550, non-retryable), so each job fails at once and goes to the DLQ.
describe("the library's activities by their namespaced names, and by the bare names of earlier histories (real dev server)", function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let smtp: TestSmtpServer;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
    smtp = await startSmtpServer(() => ({ code: 550, message: 'mailbox unavailable' }));
  });
  after(async () => {
    await smtp?.close();
    await stopJobsTestEnv({ env, testDb });
  });

  async function setUp(): Promise<{ jobs: JobClient; worker: TestWorker; taskQueue: string }> {
    const taskQueue = uniqueId('tq');
    const deps = { ...testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }), email: { smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' } };
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps) });
    return { jobs: new JobClient(env.client, { catalog, taskQueue }), worker, taskQueue };
  }

  /** The activity types a workflow run scheduled, in order. */
  async function scheduled(workflowId: string, runId?: string): Promise<string[]> {
    const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
    return (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  }

  /** Starts a send-email job as a release before protocol 2 did: the same start, without the protocol in its memo. */
  async function startAsEarlierRelease(taskQueue: string, to: string): Promise<string> {
    const id = uniqueId('earlier');
    const { workflowType, options } = jobWorkflowStart({ definition: catalog.definition('send-email')!, payload: payload(to), taskQueue, id, mode: 'enqueue' });
    const memo = { ...options.memo };
    delete memo[jobProtocolMemoKey];
    await env.client.workflow.start(workflowType, { ...options, memo });
    return id;
  }

  it('a job started now hands off through durable-jobs.handOffToDeadLetter, and the DLQ redrives it through durable-jobs.restartJob', async () => {
    const { jobs, worker, taskQueue } = await setUp();
    await worker.runUntil(async () => {
      const { id, handle } = await jobs.enqueue('send-email', payload('now@example.com'), { id: uniqueId('now') });
      await assert.rejects(handle.result());
      assert.equal((await handle.describe()).memo?.[jobProtocolMemoKey], currentJobProtocol, 'started under the current protocol');
      const calls = await scheduled(id);
      assert.ok(calls.includes('durable-jobs.handOffToDeadLetter'), `scheduled: ${calls.join(', ')}`);
      assert.ok(!calls.includes('handOffToDeadLetter'), 'not by the bare name');
      assert.equal((await deadLetterEntries(env.client, taskQueue, 'send-email')).filter((e) => e.id === id).length, 1);

      await jobs.deadLetters.redrive(id, { reason: 'names' });
      const shard = deadLetterShardWorkflowId(taskQueue, 'send-email', deadLetterShardOf(id));
      const dlqCalls = await waitFor(() => scheduled(shard), (c) => c.length > 0);
      assert.deepEqual(dlqCalls, ['durable-jobs.restartJob']);
    });
  });

  it('a job an earlier release started still hands off through the bare handOffToDeadLetter, which the worker still runs', async () => {
    const { worker, taskQueue } = await setUp();
    await worker.runUntil(async () => {
      const id = await startAsEarlierRelease(taskQueue, 'earlier@example.com');
      await assert.rejects(env.client.workflow.getHandle(id).result());
      const calls = await scheduled(id);
      assert.ok(calls.includes('handOffToDeadLetter'), `scheduled: ${calls.join(', ')}`);
      assert.ok(!calls.some((c) => c.startsWith('durable-jobs.')), 'no namespaced name in a history recorded under protocol 1');
      const entries = (await deadLetterEntries(env.client, taskQueue, 'send-email')).filter((e) => e.id === id);
      assert.equal(entries.length, 1, 'the alias ran the hand-off');
      assert.equal(entries[0]!.status, 'dead-lettered');
    });
  });

  it('a DLQ an earlier release started redrives through the bare restartJob, then continues as new under the current protocol', async () => {
    const { jobs, worker, taskQueue } = await setUp();
    const id = uniqueId('old-dlq');
    const shard = deadLetterShardWorkflowId(taskQueue, 'send-email', deadLetterShardOf(id));
    // The shard as an earlier release started it: no memo. It continues as new after 40 events.
    const old = await env.client.workflow.start('deadLetterWorkflow', { workflowId: shard, taskQueue, args: [{ type: 'send-email', continueAsNewAfterEvents: 40 }] });
    await worker.runUntil(async () => {
      const { handle } = await jobs.enqueue('send-email', payload('old-dlq@example.com'), { id });
      await assert.rejects(handle.result());
      await deadLetterEntries(env.client, taskQueue, 'send-email');
      await jobs.deadLetters.redrive(id, { reason: 'names' });
      assert.ok((await scheduled(shard, old.firstExecutionRunId)).includes('restartJob'), 'the run started without a protocol calls the bare name');
      const back = await waitFor(() => jobs.deadLetters.show(id), (e) => e.status === 'dead-lettered' && e.failures === 2, 30_000);
      assert.equal(back.failures, 2, 'the redriven job failed again and was handed off again');
      // More hand-offs to the same shard, until its run passes 40 events and continues as new.
      const sameShard = Array.from({ length: 400 }, (_, n) => `${id}-${n}`).filter((other) => deadLetterShardOf(other) === deadLetterShardOf(id));
      for (let i = 0; i < 10 && (await env.client.workflow.getHandle(shard).describe()).runId === old.firstExecutionRunId; i++) {
        const more = await jobs.enqueue('send-email', payload(`more-${i}@example.com`), { id: sameShard[i] });
        await assert.rejects(more.handle.result());
      }
      const next = await waitFor(() => env.client.workflow.getHandle(shard).describe(), (d) => d.runId !== old.firstExecutionRunId, 30_000);
      assert.notEqual(next.runId, old.firstExecutionRunId, `the shard continued as new (its run has ${next.historyLength} events)`);
      assert.equal(next.memo?.[jobProtocolMemoKey], currentJobProtocol, 'its next run is under the current protocol');
      assert.equal(Number(next.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 60, 'and has the DLQ\'s task timeout, where the earlier release\'s start had 10 s');
      const carried = await jobs.deadLetters.show(id);
      assert.equal(carried.failures, 2, 'the entry came through the continue-as-new');
    });
  });
});
