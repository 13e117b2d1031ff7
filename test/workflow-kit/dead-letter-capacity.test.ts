import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { sendDeadLetters, startDeadLetterQueue } from '../../src/activity-kit/dead-letter';
import { JobClient } from '../../src/client/job-client';
import { deadLetterWorkflowId, deadLetterWorkflowTaskTimeout } from '../../src/catalog/dead-letter';
import { deadLetterShardCount, deadLetterShardOf, deadLetterShardWorkflowId } from '../../src/catalog/dead-letter-shards';
import { deadLetterEntriesQuery } from '../../src/workflow-kit/dead-letter';
import type { DeadLetterInput } from '../../src/workflow-kit/dead-letter-entries';
import { type TestDb } from '../helpers/db';
import { createTestWorker, repoRoot, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { waitFor } from '../helpers/dlq';
import { catalog } from '../../src/jobs/catalog';

const type = 'generate-report';

/** A hand-off as the activity sends it, of a job that never ran (the DLQ takes what it is given). */
function entry(id: string, i: number, fingerprint: string, payloadBytes = 10): DeadLetterInput {
  return {
    id, type, runId: `run-${id}`, payload: { n: i, pad: 'x'.repeat(payloadBytes) }, attempts: 1,
    failedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    error: { type: 'jobs:unexpected', message: `boom ${i}` }, fingerprint, fingerprintText: `jobs:unexpected: boom <n> (${fingerprint})`,
  };
}

/** Hands entries to their shards in batches, as workers do. */
async function handOff(env: TestWorkflowEnvironment, taskQueue: string, entries: DeadLetterInput[]): Promise<void> {
  const byShard = new Map<number, DeadLetterInput[]>();
  for (const e of entries) byShard.set(deadLetterShardOf(e.id), [...(byShard.get(deadLetterShardOf(e.id)) ?? []), e]);
  await Promise.all([...byShard].map(async ([shard, list]) => {
    for (let i = 0; i < list.length; i += 10) await sendDeadLetters(env.client, taskQueue, deadLetterShardWorkflowId(taskQueue, type, shard), list.slice(i, i + 10));
  }));
}

// The DLQ's capacity and its continue-as-new hand-over, driven by signals and read by queries, on a
// real dev server: the time-skipping server does not enforce the 2 MB continue-as-new input limit
// nor the 2 MB of a query result. Entries are handed off directly (no jobs run), so thousands
// arrive in seconds: pages that stay under the limit, a cursor that walks every shard in one
// order, groups summed across shards, bulk operations that stream.
describe('dead-letter queue capacity and paging (real dev server)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  async function setUp() {
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(testActivityDeps(testDb.db, { reportsDir: os.tmpdir() })) });
    return { worker, taskQueue, jobs: new JobClient(env.client, { catalog, taskQueue }) };
  }

  it('keeps 5,000 entries across continue-as-new, with signals arriving during each hand-over, while the operator reads and discards through it', async function () {
    this.timeout(300_000);
    const { worker, taskQueue, jobs } = await setUp();
    const dlqId = deadLetterWorkflowId(taskQueue, type);
    // Started as the hand-off starts a DLQ (its task timeout), with a small continue-as-new limit.
    await env.client.workflow.start('deadLetterWorkflow', { workflowId: dlqId, taskQueue, args: [{ type, continueAsNewAfterEvents: 400 }], workflowTaskTimeout: deadLetterWorkflowTaskTimeout });
    const firstRun = (await env.client.workflow.getHandle(dlqId).describe()).runId;
    const n = 5000;
    const discards = 150;
    await worker.runUntil(async () => {
      const flood = (async () => {
        for (let i = 0; i < n; i += 50) {
          await Promise.all(
            Array.from({ length: 50 }, (_, k) => {
              const id = `bulk-${i + k}`;
              return startDeadLetterQueue(env.client, taskQueue, type, {
                id, type, runId: `run-${id}`, payload: { n: i + k }, attempts: 1, failedAt: new Date().toISOString(),
                error: { type: 'jobs:unexpected', message: `boom ${i + k}` }, fingerprint: 'f00', fingerprintText: 'jobs:unexpected: boom <n>',
              });
            }),
          );
        }
      })();
      // The operator works through the hand-overs: each update and query that lands on one is
      // retried on the next run, so none fails and none is applied twice.
      await waitFor(() => jobs.deadLetters.counts(), (c) => (c[type]?.['dead-lettered'] ?? 0) >= discards, 60_000);
      const runsBefore = (await env.client.workflow.getHandle(dlqId).describe()).runId;
      for (let i = 0; i < discards; i++) {
        await jobs.deadLetters.discard(`bulk-${i}`, 'during the flood');
        if (i % 10 === 0) await jobs.deadLetters.page({ type, limit: 100 });
      }
      await flood;
      const counts = await waitFor(() => jobs.deadLetters.counts(), (c) => (c[type]?.['dead-lettered'] ?? 0) + (c[type]?.discarded ?? 0) >= n, 60_000);
      assert.deepEqual([counts[type]?.['dead-lettered'], counts[type]?.discarded], [n - discards, discards], 'no entry lost, every discard applied once');
      const description = await env.client.workflow.getHandle(dlqId).describe();
      assert.notEqual(description.runId, firstRun, 'the DLQ continued as new');
      assert.notEqual(description.runId, runsBefore, 'the discards spanned a hand-over');
      assert.ok(description.historyLength < 2000, `history bounded (${description.historyLength} events)`);
      assert.equal(Number(description.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds), 60, 'the next run keeps the DLQ\'s task timeout');
      assert.equal((await jobs.deadLetters.show('bulk-0')).audit.filter((a) => a.action === 'discard').length, 1);
    });
  });

  it('walks 3,000 entries over 16 shards a page at a time with a cursor, in order, none twice or missed; jobctl pages the same way', async () => {
    const { worker, taskQueue, jobs } = await setUp();
    const n = 3000;
    const entries = Array.from({ length: n }, (_, i) => entry(`page-${i}`, i, i % 3 === 0 ? 'f-three' : 'f-other'));
    await worker.runUntil(async () => {
      await handOff(env, taskQueue, entries);
      await waitFor(() => jobs.deadLetters.counts(), (c) => c[type]?.['dead-lettered'] === n, 60_000);

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await jobs.deadLetters.page({ type, limit: 250, cursor });
        assert.ok(page.entries.length <= 250);
        seen.push(...page.entries.map((e) => e.id));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor);
      assert.equal(pages, 12);
      assert.deepEqual(seen, entries.map((e) => e.id), 'every entry once, oldest failure first, across the shards');

      const groups = await jobs.deadLetters.groups(type);
      assert.deepEqual(groups.map((g) => [g.fingerprint, g.count]), [['f-other', 2000], ['f-three', 1000]], 'counts summed over the shards');
      assert.equal(groups[1]!.firstFailedAt, entries[0]!.failedAt);
      assert.equal(groups[1]!.lastFailedAt, entries[2997]!.failedAt);
      assert.equal(groups[0]!.firstFailedAt, entries[1]!.failedAt);

      const ctl = (...args: string[]) => runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), ...args], { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue });
      const first = await ctl('dlq', 'list', '--type', type, '--limit', '1000', '--json');
      assert.equal(first.code, 0, first.stderr);
      assert.equal(JSON.parse(first.stdout).length, 1000);
      const next = /--cursor (\S+)/.exec(first.stderr)?.[1];
      assert.ok(next, `the next page's cursor is printed: ${first.stderr}`);
      const second = JSON.parse((await ctl('dlq', 'list', '--type', type, '--limit', '1000', '--json', '--cursor', next)).stdout) as { id: string }[];
      assert.deepEqual(second.map((e) => e.id), seen.slice(1000, 2000));
      const bad = await ctl('dlq', 'list', '--cursor', 'not-a-cursor');
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /cursor/);

      // A bulk discard of one group streams over every shard and leaves the other group alone.
      const dry = await ctl('dlq', 'discard', '--fingerprint', 'f-three', '--dry-run');
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /dry run: would discard 1000 job\(s\); nothing was changed/);
      const discarded = await ctl('dlq', 'discard', '--fingerprint', 'f-three', '--reason', 'test: given up', '--json');
      assert.equal(discarded.code, 0, discarded.stderr);
      assert.equal((JSON.parse(discarded.stdout) as { discardedAt?: string }[]).filter((o) => o.discardedAt).length, 1000);
      const counts = (await jobs.deadLetters.counts())[type]!;
      assert.deepEqual([counts['dead-lettered'], counts.discarded], [2000, 1000]);
      assert.equal((await jobs.deadLetters.show('page-3')).audit.at(-1)?.detail, 'test: given up');
    });
  });

  it('pages entries whose payloads add up past the 2 MB a query result may carry (the one-result query fails on them)', async () => {
    const { worker, taskQueue, jobs } = await setUp();
    // 60 entries of 60 KB, all in one shard: 3.6 MB of entries where one result carries 2 MB.
    const ids: string[] = [];
    for (let i = 0; ids.length < 60; i++) if (deadLetterShardOf(`big-${i}`) === 0) ids.push(`big-${i}`);
    await worker.runUntil(async () => {
      await handOff(env, taskQueue, ids.map((id, i) => entry(id, i, 'f-big', 60_000)));
      await waitFor(() => jobs.deadLetters.counts(), (c) => c[type]?.['dead-lettered'] === 60, 60_000);
      const shard = env.client.workflow.getHandle(deadLetterShardWorkflowId(taskQueue, type, 0));
      await assert.rejects(shard.query(deadLetterEntriesQuery), /size exceeds limit|too large|exceeds/i, 'the one-result query is over the limit');
      const listed = await jobs.deadLetters.list({ type });
      assert.deepEqual(listed.map((e) => e.id), ids);
      const page = await jobs.deadLetters.page({ type, limit: 1000 });
      assert.equal(page.entries.length, 60, 'a page gathers chunks from the shard until its limit');
    });
  });

  it('has the shard count it was built with: a stored contract', () => {
    assert.equal(deadLetterShardCount, 16);
    assert.deepEqual(['a', 'payment-1', 'x'.repeat(250)].map(deadLetterShardOf), [deadLetterShardOf('a'), deadLetterShardOf('payment-1'), deadLetterShardOf('x'.repeat(250))]);
    assert.equal(deadLetterShardWorkflowId('jobs', 'send-email', 7), 'durable-jobs-dlq:jobs:send-email:shard-07');
  });
});
