import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { msToNumber } from '../../src/shared/sdk-internals';
import { createActivities } from '../../src/activities';
import { outboxFileFor } from '../../src/activities/email';
import { JobClient } from '../../src/client/job-client';
import { SendEmailErrorType, sendEmailJob, type SendEmailResult } from '../../src/jobs/send-email';
import { InvalidPayloadError } from '../../src/shared/errors';
import { type TestDb } from '../helpers/db';
import { createTestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { testActivityDeps } from '../helpers/worker';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { catalog } from '../../src/jobs/catalog';

const payload = { to: 'ada@example.com', subject: 'Hello', body: 'Hi Ada', userId: 'user-1' };

describe('send-email job (time-skipping)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let smtp: TestSmtpServer | undefined;
  let testDb: TestDb;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  /** Every real activity, with this email transport, reporting dead letters on `taskQueue`. */
  const deps = (taskQueue: string, email: { smtpUrl?: string; outboxDir: string; from: string }) => ({
    ...testActivityDeps(testDb.db, { reportsDir: os.tmpdir() }),
    email,
  });
  afterEach(async () => {
    await smtp?.close();
    smtp = undefined;
  });

  async function outboxDir() {
    return mkdtemp(path.join(os.tmpdir(), 'outbox-'));
  }

  /** The real activities, with the test environment's (skipped) clock read as each attempt starts. */
  function recordingActivities(deps: Parameters<typeof createActivities>[0], startedAt: number[]) {
    const real = createActivities(deps);
    return {
      ...real,
      sendEmail: async (input: Parameters<typeof real.sendEmail>[0]) => {
        startedAt.push(await env.currentTimeMs());
        return real.sendEmail(input);
      },
    };
  }

  it('succeeds and writes exactly one message to the outbox', async () => {
    const taskQueue = uniqueId('tq');
    const outbox = await outboxDir();
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const worker = await createTestWorker(env, bundle, { taskQueue, activities: createActivities(deps(taskQueue, { outboxDir: outbox, from: 'jobs@test' })) });
    const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('job') });
    const result = (await worker.runUntil(handle.result())) as SendEmailResult;

    const files = await readdir(outbox);
    assert.deepEqual(files, [outboxFileFor(id)]);
    const eml = await readFile(path.join(outbox, files[0]!), 'utf8');
    assert.match(eml, new RegExp(`Message-ID: <${id}@durable-jobs>`));
    assert.match(eml, /To: ada@example.com/);
    assert.equal(result.transport, 'outbox');
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.attempts, 1);
    assert.equal(record.maxAttempts, 6);
    assert.deepEqual(record.payload, payload);
  });

  it('retries SMTP 4xx answers on the declared schedule and succeeds on attempt N+1', async () => {
    const failures = 5; // every step of 1s, 5s, 30s, 5m, 30m
    smtp = await startSmtpServer((attempt) => (attempt <= failures ? { code: 451, message: 'try again later' } : undefined));
    const taskQueue = uniqueId('tq');
    const startedAt: number[] = [];
    const activities = recordingActivities(deps(taskQueue, { smtpUrl: smtp.url, outboxDir: await outboxDir(), from: 'jobs@test' }), startedAt);
    const worker = await createTestWorker(env, bundle, { taskQueue, activities });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const started = Date.now();
    const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('job') });
    const result = (await worker.runUntil(handle.result())) as SendEmailResult;

    assert.equal(result.transport, 'smtp');
    assert.equal(smtp.attempts(), failures + 1);
    assert.equal(smtp.received.length, 1);
    assert.match(smtp.received[0]!.raw, new RegExp(`Message-ID: <${id}@durable-jobs>`));
    const gaps = startedAt.slice(1).map((t, i) => t - startedAt[i]!);
    const declared = sendEmailJob.presets.send.retry.kind === 'schedule' ? sendEmailJob.presets.send.retry.delays.map((d) => msToNumber(d)) : [];
    assert.equal(gaps.length, declared.length);
    gaps.forEach((gap, i) => {
      assert.ok(gap >= declared[i]! && gap < declared[i]! + 2000, `gap ${i + 1} was ${gap} ms, declared ${declared[i]} ms`);
    });
    assert.ok(Date.now() - started < 60_000, 'the 30-minute step was skipped, not waited for');
    assert.equal((await jobs.get(id)).attempts, failures + 1);
  });

  it('fails after exactly one attempt when SMTP answers 5xx', async () => {
    smtp = await startSmtpServer(() => ({ code: 550, message: 'mailbox unavailable' }));
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, {
      taskQueue,
      activities: createActivities(deps(taskQueue, { smtpUrl: smtp.url, outboxDir: await outboxDir(), from: 'jobs@test' })),
    });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('job') });
    const err = await worker.runUntil(handle.result().then(() => undefined, (e: unknown) => e));

    assert.ok(err instanceof WorkflowFailedError);
    assert.ok(err.cause instanceof ActivityFailure);
    assert.ok(err.cause.cause instanceof ApplicationFailure);
    assert.equal(err.cause.cause.type, SendEmailErrorType.SmtpRejected);
    assert.equal(smtp.attempts(), 1);
    const record = await jobs.get(id);
    assert.equal(record.status, 'failed');
    assert.equal(record.attempts, 1);
    assert.equal(record.error?.type, SendEmailErrorType.SmtpRejected);
    assert.ok(record.failedAt);
  });

  it('retries a refused login (a rotated password) as send-email:smtp-config, and sends once the credentials match again', async () => {
    const login = { user: 'jobs', pass: 'rotated' };
    smtp = await startSmtpServer(undefined, { login });
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, {
      taskQueue,
      activities: createActivities(deps(taskQueue, { smtpUrl: smtp.url.replace('smtp://', 'smtp://jobs:old@'), outboxDir: await outboxDir(), from: 'jobs@test' })),
    });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const { id, handle } = await jobs.enqueue('send-email', payload, { id: uniqueId('job') });
    const result = await worker.runUntil(async () => {
      for (let record = await jobs.get(id); record.error?.type !== SendEmailErrorType.SmtpConfig; record = await jobs.get(id)) {
        assert.ok(record.status === 'running' || record.status === 'retrying', `still ${record.status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      login.pass = 'old'; // the operator puts the old password back (or the worker gets the new one)
      return (await handle.result()) as SendEmailResult;
    });
    assert.equal(result.transport, 'smtp');
    assert.equal(smtp.received.length, 1);
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.ok(record.attempts >= 2, `attempts ${record.attempts}`);
  });

  it('runs a job once when the same ID is enqueued twice', async () => {
    const taskQueue = uniqueId('tq');
    const outbox = await outboxDir();
    let runs = 0;
    const real = createActivities(deps(taskQueue, { outboxDir: outbox, from: 'jobs@test' }));
    const worker = await createTestWorker(env, bundle, {
      taskQueue,
      activities: { ...real, sendEmail: async (input: Parameters<typeof real.sendEmail>[0]) => ((runs += 1), real.sendEmail(input)) },
    });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const id = uniqueId('job');
    const first = await jobs.enqueue('send-email', payload, { id });
    const second = await jobs.enqueue('send-email', payload, { id });
    assert.equal(first.existed, false);
    assert.equal(second.existed, true);
    await worker.runUntil(first.handle.result());
    const third = await jobs.enqueue('send-email', payload, { id });
    assert.equal(third.existed, true, 'a completed job ID is not reused');
    assert.equal(runs, 1);
    assert.deepEqual(await readdir(outbox), [outboxFileFor(id)]);
  });

  it('rejects a bad payload before anything is enqueued', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('tq') });
    const id = uniqueId('job');
    const err = await jobs.enqueue('send-email', { ...payload, to: 'not-an-address', subject: '' }, { id }).catch((e: unknown) => e);
    assert.ok(err instanceof InvalidPayloadError);
    assert.deepEqual(
      err.issues.map((i) => i.path),
      ['payload.to', 'payload.subject'],
    );
    assert.match(err.message, /payload\.to: must be a valid email address/);
    await assert.rejects(env.client.workflow.getHandle(id).describe(), WorkflowNotFoundError);
  });
});
