import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { DeadLetterError } from '../../src/client/dead-letters';
import { seedDemoAccounts } from '../../src/jobs/database/seed';
import { deadLetterShardOf, deadLetterShardWorkflowId } from '../../src/catalog/dead-letter-shards';
import { deadLettersSignal, discardUpdate, redriveUpdate } from '../../src/workflow-kit/dead-letter';
import { deadLetterWorkflowTaskTimeout } from '../../src/catalog/dead-letter';
import { ErrorType, InvalidOptionError, InvalidPayloadError } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { deadLetterEntries, waitFor } from '../helpers/dlq';
import { createTestWorker, repoRoot, type TestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';
import { SendEmailErrorType } from '../../src/jobs/send-email';

const payload = (to: string) => ({ to, subject: 'Hello', body: 'Hi', userId: 'u1' });

// A real dev server, not the time-skipping one: the DLQ's operations are workflow updates, which
// the time-skipping test server does not serve reliably ("update … not found").
describe('dead-letter queue (real dev server)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let smtp: TestSmtpServer;
  /** Whether the test SMTP server refuses every message with 550 (a non-retryable failure). */
  let refusing = true;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
    smtp = await startSmtpServer(() => (refusing ? { code: 550, message: 'mailbox 12345 unavailable' } : undefined));
  });
  after(async () => {
    await smtp?.close();
    await stopJobsTestEnv({ env, testDb });
  });
  beforeEach(() => (refusing = true));

  /** A fresh task queue (so a fresh DLQ per test: the DLQ's ID is per type, so each test uses its own namespace of IDs) and a worker on it. */
  async function setUp(): Promise<{ jobs: JobClient; worker: TestWorker; taskQueue: string }> {
    const taskQueue = uniqueId('tq');
    const deps = { ...testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }), email: { smtpUrl: smtp.url, outboxDir: os.tmpdir(), from: 'jobs@test' } };
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps) });
    return { jobs: new JobClient(env.client, { catalog, taskQueue }), worker, taskQueue };
  }

  async function failJob(jobs: JobClient, to: string): Promise<string> {
    const { id, handle } = await jobs.enqueue('send-email', payload(to), { id: uniqueId('dlq-job') });
    await assert.rejects(handle.result());
    return id;
  }

  // The DLQ of a type is one workflow per namespace, shared by every test in this file: each
  // test therefore selects its own entries by job ID.
  const mine = (ids: string[]) => async (jobs: JobClient) => (await jobs.deadLetters.list({ status: 'all' })).filter((e) => ids.includes(e.id));

  it('hands a job that failed for good to the DLQ with its record, attempts, error and fingerprint; the job ends Failed', async () => {
    const { jobs, worker } = await setUp();
    await worker.runUntil(async () => {
      const id = await failJob(jobs, 'ada@example.com');
      const entries = (await deadLetterEntries(env.client, jobs.taskQueue, 'send-email')).filter((e) => e.id === id);
      assert.equal(entries.length, 1);
      const [entry] = entries;
      assert.equal(entry!.status, 'dead-lettered');
      assert.equal(entry!.type, 'send-email');
      assert.deepEqual(entry!.payload, payload('ada@example.com'));
      assert.equal(entry!.attempts, 1);
      assert.equal(entry!.error.type, SendEmailErrorType.SmtpRejected);
      assert.match(entry!.fingerprint, /^[0-9a-f]{12}$/);
      assert.ok(entry!.firstFailedAt && entry!.lastFailedAt);
      assert.equal((await jobs.get(id)).status, 'failed', "the job's own workflow still ends Failed");
    });
  });

  it('keeps in the entry when the job was enqueued, not when a backlogged worker first ran it; jobctl list --status dead-lettered shows it', async () => {
    const { jobs, worker, taskQueue } = await setUp();
    // Enqueued while no worker runs: the job's first workflow task waits 3 s in the backlog. The wait
    // is the scenario, not a wait for progress: a createdAt taken when a worker first ran the job
    // would then be 3 s off, where the assertions compare to the millisecond.
    const { id, handle } = await jobs.enqueue('send-email', payload('late@example.com'), { id: uniqueId('dlq-backlog') });
    await new Promise((r) => setTimeout(r, 3000));
    await worker.runUntil(async () => {
      await assert.rejects(handle.result());
      const [entry] = (await deadLetterEntries(env.client, taskQueue, 'send-email')).filter((e) => e.id === id);
      const record = await jobs.get(id);
      assert.equal(entry?.createdAt, record.createdAt, 'the entry and the job record agree');
      const listed = await runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), 'list', '--status', 'dead-lettered', '--json'], { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue });
      assert.equal(listed.code, 0, listed.stderr);
      const row = (JSON.parse(listed.stdout) as { id: string; createdAt?: string }[]).find((r) => r.id === id);
      assert.equal(row?.createdAt, record.createdAt);
    });
  });

  it('records who redrove and who discarded (by) in the audit trail, through single and bulk operations; a bad by changes nothing', async () => {
    const { jobs, worker } = await setUp();
    await worker.runUntil(async () => {
      const [a, b, c] = [await failJob(jobs, 'by-a@example.com'), await failJob(jobs, 'by-b@example.com'), await failJob(jobs, 'by-c@example.com')];
      await deadLetterEntries(env.client, jobs.taskQueue, 'send-email', 3);
      await assert.rejects(jobs.deadLetters.discard(a, { reason: 'x', by: '' }), (err: unknown) => err instanceof InvalidOptionError && /by: must be a name/.test(err.message));
      assert.equal((await jobs.deadLetters.show(a)).status, 'dead-lettered', 'nothing changed');
      const first = await jobs.deadLetters.redrive(a, { reason: 'retry', by: 'ana' });
      await assert.rejects(env.client.workflow.getHandle(a, first.runId).result());
      const back = await waitFor(() => jobs.deadLetters.show(a), (e) => e.status === 'dead-lettered' && e.failures === 2);
      assert.deepEqual(back.audit.map((r) => [r.action, r.by]), [['dead-lettered', undefined], ['redrive', 'ana'], ['dead-lettered', undefined]]);
      const discarded = await jobs.deadLetters.discard(b, { reason: 'customer left', by: 'ben' });
      assert.deepEqual([discarded.audit.at(-1)!.by, discarded.audit.at(-1)!.detail], ['ben', 'customer left']);
      for await (const o of jobs.deadLetters.discardAll({ type: 'send-email', id: c }, { reason: 'bulk', by: 'cleo' })) assert.equal(o.error, undefined);
      assert.deepEqual((await jobs.deadLetters.show(c)).audit.at(-1), { ...(await jobs.deadLetters.show(c)).audit.at(-1), action: 'discard', by: 'cleo', detail: 'bulk' });
      const [byBulk] = await jobs.deadLetters.redriveMany([await jobs.deadLetters.show(a)], { by: 'dora' });
      assert.ok(byBulk?.runId, byBulk?.error);
      const redriven = await waitFor(() => jobs.deadLetters.show(a), (e) => e.audit.some((r) => r.by === 'dora'));
      assert.equal(redriven.audit.find((r) => r.by === 'dora')?.action, 'redrive');
    });
  });

  it('groups failures of one cause under one fingerprint, whatever the varying details', async () => {
    const { jobs, worker } = await setUp();
    await worker.runUntil(async () => {
      const a = await failJob(jobs, 'one@example.com');
      const b = await failJob(jobs, 'two@example.com');
      await deadLetterEntries(env.client, jobs.taskQueue, 'send-email', 2);
      const [ea, eb] = await Promise.all([jobs.deadLetters.show(a), jobs.deadLetters.show(b)]);
      assert.equal(ea.fingerprint, eb.fingerprint);
      const group = (await jobs.deadLetters.groups('send-email')).find((g) => g.fingerprint === ea.fingerprint);
      assert.ok(group && group.count >= 2);
    });
  });

  it('redrives one job under the same ID, keeping its createdAt; a redrive that fails again returns with its earlier attempts kept; discard ends it', async () => {
    const { jobs, worker } = await setUp();
    await worker.runUntil(async () => {
      const id = await failJob(jobs, 'again@example.com');
      const { createdAt } = await jobs.get(id);
      await deadLetterEntries(env.client, jobs.taskQueue, 'send-email', 1);
      const first = await jobs.deadLetters.redrive(id, { reason: 'smtp fixed?' });
      await assert.rejects(env.client.workflow.getHandle(id, first.runId).result());
      const back = await waitFor(() => jobs.deadLetters.show(id), (e) => e.status === 'dead-lettered' && e.failures === 2);
      assert.equal(back.attempts, 2, 'attempts of both runs');
      assert.deepEqual(back.audit.map((a) => a.action), ['dead-lettered', 'redrive', 'dead-lettered']);
      assert.equal(back.audit[1]!.detail, 'smtp fixed?');
      await assert.rejects(jobs.enqueue('send-email', payload('again@example.com'), { id }).then((r) => assert.equal(r.existed, true)).then(() => { throw new Error('ok'); }), /ok/, 'plain enqueue still refuses the used ID');

      refusing = false;
      const second = await jobs.deadLetters.redrive(id);
      await env.client.workflow.getHandle(id, second.runId).result();
      const redriven = await jobs.get(id);
      assert.equal(redriven.status, 'completed');
      assert.equal(redriven.createdAt, createdAt, 'createdAt stays the first enqueue, through two redrives');
      assert.equal((await jobs.deadLetters.show(id)).status, 'redriven');
      await assert.rejects(jobs.deadLetters.redrive(id), (err: unknown) => err instanceof DeadLetterError && err.type === ErrorType.DlqInvalidState);

      refusing = true;
      const other = await failJob(jobs, 'discard@example.com');
      const discarded = await jobs.deadLetters.discard(other, 'customer left');
      assert.equal(discarded.status, 'discarded');
      assert.equal(discarded.audit.at(-1)!.detail, 'customer left');
      await assert.rejects(jobs.deadLetters.redrive(other), /discarded, not dead-lettered/);
      await assert.rejects(jobs.deadLetters.discard(uniqueId('nobody')), (err: unknown) => err instanceof DeadLetterError && err.type === ErrorType.DlqEntryNotFound);
    });
  });

  it('redrives by fingerprint with a patch, rate-limited; a dry run changes nothing; a bad patch is rejected naming the field', async () => {
    const { jobs, worker } = await setUp();
    await worker.runUntil(async () => {
      const ids = [await failJob(jobs, 'p1@example.com'), await failJob(jobs, 'p2@example.com'), await failJob(jobs, 'p3@example.com')];
      await deadLetterEntries(env.client, jobs.taskQueue, 'send-email', 3);
      const entries = await mine(ids)(jobs);
      const fingerprint = entries[0]!.fingerprint;
      const group = entries.filter((e) => e.fingerprint === fingerprint);
      assert.equal(group.length, 3);

      const dry = await jobs.deadLetters.redriveMany(group, { dryRun: true, patch: { subject: 'Patched' } });
      assert.equal(dry.length, 3);
      assert.ok(dry.every((o) => o.dryRun && (o.payload as { subject: string }).subject === 'Patched'));
      assert.ok((await mine(ids)(jobs)).every((e) => e.status === 'dead-lettered'), 'the dry run changed nothing');

      assert.throws(() => jobs.deadLetters.patchedPayload(group[0]!, { to: 'not-an-address' }), (err: unknown) => err instanceof InvalidPayloadError && /payload\.to/.test(err.message));
      await assert.rejects(jobs.deadLetters.redriveMany(group, { patch: { subject: '' } }), /payload\.subject/);
      assert.ok((await mine(ids)(jobs)).every((e) => e.status === 'dead-lettered'), 'a bad patch restarted nothing');
      // A caller that skips the client's check meets the worker's: the DLQ's restart activity validates against the catalog, and the update fails.
      const dlq = env.client.workflow.getHandle(deadLetterShardWorkflowId(jobs.taskQueue, 'send-email', deadLetterShardOf(ids[0]!)));
      await assert.rejects(dlq.executeUpdate(redriveUpdate, { args: [{ id: ids[0]!, patch: { to: 'not-an-address' } }] }), (err: unknown) => {
        const cause = (err as { cause?: { message?: string; type?: string } }).cause;
        return cause?.type === ErrorType.InvalidPayload && /payload\.to/.test(cause.message ?? '');
      });
      assert.equal((await jobs.deadLetters.show(ids[0]!)).status, 'dead-lettered', 'the rejected update changed nothing');

      refusing = false;
      const outcomes = await jobs.deadLetters.redriveMany(group, { patch: { subject: 'Patched' }, ratePerSecond: 4 });
      assert.ok(outcomes.every((o) => o.runId && !o.error), JSON.stringify(outcomes));
      assert.deepEqual((await jobs.deadLetters.show(outcomes[0]!.id)).audit.at(-1)!.patch, { subject: 'Patched' }, 'the audit trail keeps the patch');
      const starts = outcomes.map((o) => Date.parse(o.startedAt!));
      starts.slice(1).forEach((t, i) => assert.ok(t - starts[i]! >= 240, `restarts ${i} and ${i + 1} were ${t - starts[i]!} ms apart at 4/s`));
      for (const o of outcomes) {
        await env.client.workflow.getHandle(o.id, o.runId).result();
        assert.equal(((await jobs.get(o.id)).payload as { subject: string }).subject, 'Patched');
      }
      assert.ok(smtp.received.some((m) => /Subject: Patched/.test(m.raw)));
    });
  });

  it('refuses a redrive patch that changes what the job ID derives from (a payment\'s paymentId), in the client and in the DLQ workflow', async () => {
    const { jobs, worker } = await setUp();
    await seedDemoAccounts(testDb.db);
    await worker.runUntil(async () => {
      const paymentId = uniqueId('pay');
      const { id, handle } = await jobs.enqueue('process-payment', { paymentId, fromAccount: 'alice', toAccount: 'nobody', amount: 100, currency: 'EUR' });
      await assert.rejects(handle.result());
      const [entry] = await deadLetterEntries(env.client, jobs.taskQueue, 'process-payment').then((all) => all.filter((e) => e.id === id));
      assert.ok(entry, 'the payment is dead-lettered');
      const other = { paymentId: uniqueId('other'), toAccount: 'bob' };
      assert.throws(() => jobs.deadLetters.patchedPayload(entry, other), (err: unknown) => err instanceof InvalidPayloadError && /must not change what the job ID derives from/.test(err.message));
      await assert.rejects(jobs.deadLetters.redrive(id, { patch: other }), InvalidPayloadError);
      const dlq = env.client.workflow.getHandle(deadLetterShardWorkflowId(jobs.taskQueue, 'process-payment', deadLetterShardOf(id)));
      await assert.rejects(dlq.executeUpdate(redriveUpdate, { args: [{ id, patch: other }] }), (err: unknown) => {
        const cause = (err as { cause?: { message?: string; type?: string } }).cause;
        return cause?.type === ErrorType.InvalidPayload && /must not change what the job ID derives from/.test(cause.message ?? '');
      });
      assert.equal((await jobs.deadLetters.show(id)).status, 'dead-lettered', 'nothing restarted');
      // A patch that keeps the paymentId is fine.
      const fixed = await jobs.deadLetters.redrive(id, { patch: { toAccount: 'bob' } });
      await env.client.workflow.getHandle(id, fixed.runId).result();
    });
  });

  it('answers a redrive or a discard retried in the DLQ\'s next run (the first answer lost) with the first answer, and applies each once', async () => {
    const { jobs, worker, taskQueue } = await setUp();
    const id = uniqueId('dlq-repeat');
    let other = uniqueId('dlq-repeat');
    while (deadLetterShardOf(other) !== deadLetterShardOf(id)) other = uniqueId('dlq-repeat');
    // The shard continues as new after every signal: each hand-off below starts a new run.
    const shardId = deadLetterShardWorkflowId(taskQueue, 'send-email', deadLetterShardOf(id));
    await env.client.workflow.start('deadLetterWorkflow', { workflowId: shardId, taskQueue, args: [{ type: 'send-email', continueAsNewAfterSignals: 1 }], workflowTaskTimeout: deadLetterWorkflowTaskTimeout });
    const shard = env.client.workflow.getHandle(shardId);
    const nextRun = async () => {
      const before = (await shard.describe()).runId;
      await shard.signal(deadLettersSignal, { entries: [] });
      await waitFor(() => shard.describe(), (d) => d.runId !== before, 30_000);
    };
    await worker.runUntil(async () => {
      for (const jobId of [id, other]) {
        const { handle } = await jobs.enqueue('send-email', payload(`${jobId}@example.com`), { id: jobId });
        await assert.rejects(handle.result());
      }
      await waitFor(() => jobs.deadLetters.counts(), (c) => c['send-email']?.['dead-lettered'] === 2, 30_000);
      refusing = false;
      const redrive = { id, reason: 'provider back', requestId: 'call-1' };
      const first = await shard.executeUpdate(redriveUpdate, { args: [redrive], updateId: 'call-1' });
      await nextRun();
      assert.deepEqual(await shard.executeUpdate(redriveUpdate, { args: [redrive], updateId: 'call-1' }), first, 'the retry gets the first answer');
      await assert.rejects(shard.executeUpdate(redriveUpdate, { args: [{ ...redrive, requestId: 'call-2' }], updateId: 'call-2' }), (err: Error) => /not dead-lettered/.test(String((err.cause as Error | undefined)?.message)), 'another call is refused');

      const discard = { id: other, reason: 'gone', requestId: 'call-3' };
      await shard.executeUpdate(discardUpdate, { args: [discard], updateId: 'call-3' });
      await nextRun();
      assert.equal((await shard.executeUpdate(discardUpdate, { args: [discard], updateId: 'call-3' })).status, 'discarded');

      const redriven = await jobs.deadLetters.show(id);
      assert.equal(redriven.audit.filter((a) => a.action === 'redrive').length, 1, 'one redrive, one run started');
      assert.equal(redriven.audit.at(-1)?.result, `started run ${first.runId}`);
      assert.equal((await jobs.deadLetters.show(other)).audit.filter((a) => a.action === 'discard').length, 1);
      await env.client.workflow.getHandle(id, first.runId).result();
    });
  });

  it('reconciles: every job is exactly one of completed, dead-lettered or discarded', async () => {
    const { jobs, worker } = await setUp();
    await worker.runUntil(async () => {
      const ok: string[] = [];
      const failed: string[] = [];
      refusing = false;
      for (let i = 0; i < 4; i++) {
        const { id, handle } = await jobs.enqueue('send-email', payload(`ok${i}@example.com`), { id: uniqueId('rec') });
        await handle.result();
        ok.push(id);
      }
      refusing = true;
      for (let i = 0; i < 6; i++) failed.push(await failJob(jobs, `bad${i}@example.com`));
      await deadLetterEntries(env.client, jobs.taskQueue, 'send-email', 6);
      await jobs.deadLetters.discard(failed[0]!);
      await jobs.deadLetters.discard(failed[1]!);
      refusing = false;
      for (const id of failed.slice(2, 4)) await env.client.workflow.getHandle(id, (await jobs.deadLetters.redrive(id)).runId).result();

      const all = [...ok, ...failed];
      const entries = new Map((await mine(all)(jobs)).map((e) => [e.id, e]));
      const where = await Promise.all(all.map(async (id) => {
        const e = entries.get(id);
        if (e?.status === 'discarded') return 'discarded';
        if (e?.status === 'dead-lettered') return 'dead-lettered';
        return (await jobs.get(id)).status;
      }));
      const count = (s: string) => where.filter((w) => w === s).length;
      assert.equal(count('completed'), 6, where.join());
      assert.equal(count('dead-lettered'), 2);
      assert.equal(count('discarded'), 2);
      assert.equal(where.length, 10);
    });
  });
});
