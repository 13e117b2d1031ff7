import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { SendEmailInput } from '../../src/activities/email';
import type { ReportPagesInput } from '../../src/activities/reports';
import { JobClient } from '../../src/client/job-client';
import { loadConfig } from '../../src/shared/config';
import { defineCatalog, type Catalog } from '../../src/catalog/catalog';
import { presetOf, type ActivityPreset } from '../../src/catalog/define-job';
import { worker as builtInWorker } from '../../src/app/worker';
import { createWorker } from '../../src/worker/create-worker';
import type { TestDb } from '../helpers/db';
import { waitFor } from '../helpers/dlq';
import { createTestWorker, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

const email = (to: string) => ({ to, subject: 'Isolation', body: 'Hello', userId: 'u-iso' });
const report = (name: string) => ({ from: '2026-01-01', to: '2027-01-01', format: 'csv' as const, name });

/** When the server handed out the last attempt of a job's activity: its ActivityTaskStarted event's time, on the server's clock. */
async function dispatchedAt(env: TestWorkflowEnvironment, workflowId: string): Promise<number> {
  const { events } = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const started = (events ?? []).filter((e) => e.activityTaskStartedEventAttributes).at(-1)?.eventTime;
  if (!started) throw new Error(`${workflowId}: no ActivityTaskStarted event`);
  return Number(String(started.seconds ?? 0)) * 1000 + Math.floor((started.nanos ?? 0) / 1e6);
}

// Task queues per job type, their slots and rate limits, on a real dev server (the time-skipping
// server neither rate-limits nor orders by priority).
describe('worker task queues: isolation between job types and rate limits', function () {
  this.timeout(240_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let dir: string;

  before(async () => {
    ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv));
    dir = await mkdtemp(path.join(os.tmpdir(), 'queues-'));
  });
  after(() => stopJobsTestEnv({ env, testDb }));

  /** The real activities, with each attempt's start recorded; reports hold their slot until released. */
  function instrumented() {
    const real = createActivities(testActivityDeps(testDb.db, { reportsDir: dir, email: { outboxDir: dir, from: 'jobs@test' } }));
    const starts: { type: 'email' | 'report'; id: string; at: number }[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const activities = {
      ...real,
      async sendEmail(input: SendEmailInput) {
        starts.push({ type: 'email', id: input.jobId, at: Date.now() });
        return real.sendEmail(input);
      },
      async aggregateReportPages(input: ReportPagesInput) {
        const ctx = Context.current();
        starts.push({ type: 'report', id: ctx.info.workflowExecution?.workflowId ?? '', at: Date.now() });
        // A slow report: it holds its slot, heartbeating, until the test lets it go.
        for (let done = false; !done; ) {
          ctx.heartbeat();
          done = await Promise.race([released.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 2000))]);
        }
        return real.aggregateReportPages(input);
      },
    };
    return { activities, starts, release };
  }

  it('starts send-email jobs while slow generate-report jobs hold every slot of the shared queue', async () => {
    const taskQueue = uniqueId('iso');
    const { activities, starts, release } = instrumented();
    const worker = await createTestWorker(env, bundle, { taskQueue, activities, limits: { concurrency: 2 } });
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const reports = await Promise.all(Array.from({ length: 6 }, (_, i) => jobs.enqueue('generate-report', report(`${taskQueue}-${i}`))));
    await worker.runUntil(async () => {
      const full = await waitFor(async () => starts.filter((s) => s.type === 'report').length, (n) => n >= 2, 60_000);
      assert.equal(full, 2, 'the two report slots of the shared queue are taken');
      const enqueuedAt = Date.now();
      const emails = await Promise.all(['a', 'b', 'c'].map((n) => jobs.enqueue('send-email', email(`${n}@example.com`))));
      await Promise.all(emails.map((e) => e.handle.result()));
      const reportStarts = starts.filter((s) => s.type === 'report');
      assert.equal(reportStarts.length, 2, 'every email finished while four reports still waited for a slot');
      const waits = starts.filter((s) => s.type === 'email').map((s) => s.at - enqueuedAt);
      console.log(`      emails started ${waits.join(', ')} ms after enqueue, behind a backlog of ${reports.length - 2} reports`);
      release();
      await Promise.all(reports.map((r) => r.handle.result()));
    });
    assert.equal(starts.filter((s) => s.type === 'report').length, 6);
  });

  /** Runs `n` jobs of the only type of `limited` and checks the server handed their attempts out at `rateLimit` a second. */
  async function holdsRate(limited: Catalog, type: 'send-email' | 'generate-report', payload: (i: number) => object, rateLimit: number) {
    const taskQueue = uniqueId('rate');
    const { activities, release } = instrumented();
    // Reports hold their slot until released: here they need not.
    release();
    const worker = await createTestWorker(env, bundle, { taskQueue, activities, catalog: limited, limits: {} });
    const jobs = new JobClient(env.client, { catalog: limited, taskQueue });
    const n = 8;
    const enqueued = await Promise.all(Array.from({ length: n }, (_, i) => jobs.enqueue(type as never, payload(i) as never)));
    await worker.runUntil(Promise.all(enqueued.map((e) => e.handle.result())));
    // When the server handed each task out, on its own clock (the time of the attempt's
    // ActivityTaskStarted event): the worker runs an attempt later by however long a loaded machine
    // takes, which once made the first start 400 ms late and put five starts within 888 ms of it.
    const at = (await Promise.all(enqueued.map((e) => dispatchedAt(env, e.id)))).sort((a, b) => a - b);
    // The server hands out at most `rateLimit` tasks a second after a burst of at most `rateLimit`:
    // n starts take at least (n - 2 * rateLimit) / rateLimit seconds, however fast the machine. The
    // 100 ms margin below is the rate limiter's refill granularity, not the machine's speed.
    const spanMs = at.at(-1)! - at[0]!;
    assert.ok(spanMs >= ((n - 2 * rateLimit) / rateLimit) * 1000, `${n} ${type} jobs started within ${spanMs} ms at ${rateLimit}/s`);
    for (let i = 0; i + 2 * rateLimit < at.length; i++) {
      assert.ok(at[i + 2 * rateLimit]! - at[i]! >= 900, `no second holds more than ${2 * rateLimit} starts (starts ${at.map((t) => t - at[0]!).join(', ')} ms)`);
    }
  }

  it('holds a declared rate limit over a type\'s own queue', async () => {
    const generateReport = catalog.definition('generate-report')!;
    const limited = defineCatalog({ jobs: [{ ...generateReport, queue: { name: 'reports', rateLimit: 2 } }], payloads: { 'generate-report': catalog.payloads['generate-report'] } });
    await holdsRate(limited, 'generate-report', (i) => report(`rate-${i}-${Date.now()}`), 2);
  });

  it('holds a dependency\'s rate over its queue, for the steps against it (send-email\'s smtp)', async () => {
    const sendEmail = catalog.definition('send-email')!;
    const declared = presetOf(sendEmail, 'send');
    const send: ActivityPreset = { ...declared, dependency: { ...declared.dependency!, rate: 2 } };
    const limited = defineCatalog({ jobs: [{ ...sendEmail, presets: { send } }], payloads: { 'send-email': catalog.payloads['send-email'] } });
    await holdsRate(limited, 'send-email', (i) => email(`r${i}@example.com`), 2);
  });

  it('runs only the task queues of WORKER_JOB_TYPES, and names an unknown type', async () => {
    const taskQueue = uniqueId('types');
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'types-'));
    const config = loadConfig({ temporalAddress: env.address, taskQueue, dataDir, workerJobTypes: 'send-email' }, {});
    const created = await createWorker({ ...builtInWorker, config });
    try {
      assert.deepEqual(created.plans.map((p) => [p.taskQueue, p.types]), [[`${taskQueue}:email`, ['send-email']]]);
      assert.deepEqual(created.dependencies.map((d) => [d.taskQueue, d.types]), [[`${taskQueue}:dependency:smtp`, ['send-email']]], 'and the queue of the dependency its steps call');
      const jobs = new JobClient(env.client, { catalog, taskQueue });
      const mail = await jobs.enqueue('send-email', email('types@example.com'));
      const sum = await jobs.enqueue('generate-report', report(`${taskQueue}-r`));
      assert.equal(created.workers.length, 2);
      await Promise.all(created.workers.map((w) => w.runUntil(mail.handle.result())));
      const pending = await jobs.get(sum.id);
      assert.notEqual(pending.status, 'completed', 'no worker serves the shared queue, so the report waits');
      assert.equal(pending.attempts, 0, 'no worker serves the shared queue, so the report waits');
    } finally {
      await created.close();
    }
    const unknown = loadConfig({ temporalAddress: env.address, taskQueue, dataDir, workerJobTypes: 'send-email,send-sms' }, {});
    await assert.rejects(createWorker({ ...builtInWorker, config: unknown }), /--types \/ WORKER_JOB_TYPES: unknown job type "send-sms" \(known: send-email, /);
  });
});
