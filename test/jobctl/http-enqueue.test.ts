import assert from 'node:assert/strict';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { JobClient } from '../../src/client/job-client';
import { enqueueOverHttp } from '../../src/jobctl/http/http-enqueue';
import { prepareJob, type PreparedJob } from '../../src/catalog/prepare-job';
import { IdConflictError } from '../../src/shared/errors';
import { startDevServerEnv } from '../../src/testing/environment';
import { catalog } from '../../src/jobs/catalog';
import { repoRoot, uniqueId } from '../helpers/env';
import { freePort, runCommand } from '../helpers/processes';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');
const mail = (to: string) => ({ to, subject: 'Hello', body: 'Hi', userId: 'user-1' });
const HistoryEvent = temporal.api.history.v1.HistoryEvent;

// jobctl's enqueue over a real dev server's HTTP API, each start compared with the same job
// started by the SDK's gRPC client: the server must record the same start, field for field.
describe("enqueue over Temporal's HTTP API (real dev server)", function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let httpAddress: string;
  let jobs: JobClient;
  const taskQueue = uniqueId('http-enqueue');
  let httpEnv: NodeJS.ProcessEnv;

  before(async () => {
    const httpPort = await freePort();
    httpAddress = `127.0.0.1:${httpPort}`;
    env = await startDevServerEnv({ httpPort });
    jobs = new JobClient(env.client, { catalog, taskQueue });
    httpEnv = { TEMPORAL_HTTP_ADDRESS: httpAddress, TEMPORAL_TASK_QUEUE: taskQueue };
  });
  after(async () => {
    await env?.teardown();
  });

  /** The job's start event, as plain data, without what differs from one workflow ID to another. */
  async function startEvent(id: string): Promise<Record<string, unknown>> {
    const { history } = await env.client.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: id }, maximumPageSize: 1 });
    const event = HistoryEvent.toObject(HistoryEvent.fromObject(history!.events![0]!), { longs: String, enums: String, bytes: String });
    const attributes = { ...(event.workflowExecutionStartedEventAttributes as Record<string, unknown>) };
    for (const key of ['originalExecutionRunId', 'firstExecutionRunId', 'workflowId', 'workflowExecutionExpirationTime']) delete attributes[key];
    return { attributes, userMetadata: event.userMetadata };
  }

  /** Starts `job` over HTTP and, under another ID, over gRPC; asserts the server recorded the same start. */
  async function assertSameStart(job: PreparedJob): Promise<void> {
    const overHttp = await enqueueOverHttp(job, catalog, httpEnv);
    assert.deepEqual(overHttp, { id: job.id, existed: false });
    const viaGrpc = { ...job, id: `${job.id}-grpc` };
    await jobs.start(viaGrpc);
    assert.deepEqual(await startEvent(job.id), await startEvent(viaGrpc.id));
  }

  it('starts a job as the SDK client starts it: input, memo, search attribute, summary, ID policy and task queue', async () => {
    await assertSameStart(prepareJob(catalog, 'noop', {}, { id: uniqueId('noop') }));
  });

  it('starts a job with a delay, a priority and a fairness key and weight as the SDK client does', async () => {
    await assertSameStart(prepareJob(catalog, 'send-email', mail('a@example.com'), { id: uniqueId('mail'), delay: '90s', priority: 1, fairnessKey: 'tenant-a', fairnessWeight: 2.5 }));
    await assertSameStart(prepareJob(catalog, 'send-email', mail('b@example.com'), { id: uniqueId('mail'), delay: 1_234 }));
  });

  it('starts a job of a paused type knowing the pause, as the SDK client does', async () => {
    await jobs.pauses.pause('sync-data', { reason: 'maintenance', by: 'test', settleMs: 0 });
    try {
      const job = prepareJob(catalog, 'sync-data', { source: 'crm' }, { id: uniqueId('sync') });
      await assertSameStart(job);
      const { memo } = await jobs.temporal.workflow.getHandle(job.id).describe();
      assert.equal((memo?.jobPause as { reason?: string } | undefined)?.reason, 'maintenance');
    } finally {
      await jobs.pauses.resume('sync-data', { settleMs: 0 });
    }
  });

  it('finds a taken ID to be the same job (existed) or a conflict, as JobClient.enqueue does', async () => {
    const job = prepareJob(catalog, 'noop', {}, { id: uniqueId('taken') });
    assert.deepEqual(await enqueueOverHttp(job, catalog, httpEnv), { id: job.id, existed: false });
    assert.deepEqual(await enqueueOverHttp(job, catalog, httpEnv), { id: job.id, existed: true });
    const otherType = prepareJob(catalog, 'send-email', mail('c@example.com'), { id: job.id });
    await assert.rejects(enqueueOverHttp(otherType, catalog, httpEnv), (err: Error) => err instanceof IdConflictError && /noop/.test(err.message));
    const emailJob = prepareJob(catalog, 'send-email', mail('d@example.com'), { id: uniqueId('taken') });
    await jobs.start(emailJob);
    await assert.rejects(enqueueOverHttp({ ...emailJob, payload: mail('e@example.com') }, catalog, httpEnv), IdConflictError);
    assert.deepEqual(await enqueueOverHttp(emailJob, catalog, httpEnv), { id: emailJob.id, existed: true });
  });

  it('leaves to gRPC what the HTTP API cannot start: an ID with a "/", a debounced or deduplicated enqueue, nothing answering', async () => {
    assert.equal(await enqueueOverHttp(prepareJob(catalog, 'noop', {}, { id: `${uniqueId('tenant')}/42` }), catalog, httpEnv), undefined);
    assert.equal(await enqueueOverHttp(prepareJob(catalog, 'noop', {}, { debounce: { key: 'k', delay: '1m' } }), catalog, httpEnv), undefined);
    assert.equal(await enqueueOverHttp(prepareJob(catalog, 'noop', {}, { dedupe: { key: 'k', ttl: '1h' } }), catalog, httpEnv), undefined);
    const nowhere = { TEMPORAL_HTTP_ADDRESS: `127.0.0.1:${await freePort()}`, TEMPORAL_TASK_QUEUE: taskQueue };
    assert.equal(await enqueueOverHttp(prepareJob(catalog, 'noop', {}, { id: uniqueId('nowhere') }), catalog, nowhere), undefined);
  });

  it('jobctl enqueue answers over HTTP alone, and over gRPC when nothing answers at the HTTP address', async () => {
    const base = { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, DURABLE_JOBS_CATALOG: path.join(repoRoot, 'dist/jobs/catalog.js') };
    const httpOnly = { ...base, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, TEMPORAL_HTTP_ADDRESS: httpAddress };
    const id = uniqueId('cli');
    const first = await runCommand(process.execPath, [jobctl, 'enqueue', 'noop', '{}', '--id', id, '--json'], httpOnly, repoRoot);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { id, existed: false });
    const again = await runCommand(process.execPath, [jobctl, 'enqueue', 'noop', '{}', '--id', id], httpOnly, repoRoot);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `${id}\n`);
    assert.match(again.stderr, /already existed; nothing new was enqueued/);
    const conflict = await runCommand(process.execPath, [jobctl, 'enqueue', 'send-email', JSON.stringify(mail('f@example.com')), '--id', id], httpOnly, repoRoot);
    assert.equal(conflict.code, 2);
    assert.match(conflict.stderr, /jobs:id-conflict/);
    const grpcOnly = { ...base, TEMPORAL_ADDRESS: env.address, TEMPORAL_HTTP_ADDRESS: `127.0.0.1:${await freePort()}` };
    const viaGrpc = await runCommand(process.execPath, [jobctl, 'enqueue', 'noop', '{}', '--id', uniqueId('cli-grpc')], grpcOnly, repoRoot);
    assert.equal(viaGrpc.code, 0, viaGrpc.stderr);
  });
});
