import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { messageIdFor, outboxFileFor } from '../../src/activities/email';
import { JobClient } from '../../src/client/job-client';
import { InvalidOptionError, InvalidPayloadError, ScheduleExistsError, ScheduleNotFoundError } from '../../src/shared/errors';
import type { TestDb } from '../helpers/db';
import { waitFor } from '../helpers/dlq';
import { createTestWorker, repoRoot, startDevServerEnv, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { runCommand } from '../helpers/processes';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';

const payload = { to: 'sched@example.com', subject: 'Every time', body: 'Hello again', userId: 'u-sched' };
const jobctl = path.join(repoRoot, 'bin/jobctl.js');

// Schedules need a real server (the time-skipping server has no scheduler).
describe('schedules', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;

  before(async () => ({ env, bundle, testDb } = await startJobsTestEnv(startDevServerEnv)));
  after(() => stopJobsTestEnv({ env, testDb }));

  it('starts each run as an ordinary job named after the schedule and its time; pause, trigger and delete', async () => {
    const taskQueue = uniqueId('sched');
    const outbox = await mkdtemp(path.join(os.tmpdir(), 'sched-'));
    const jobs = new JobClient(env.client, { catalog, taskQueue });
    const worker = await createTestWorker(env, bundle, {
      taskQueue,
      activities: createActivities(testActivityDeps(testDb.db, { reportsDir: outbox, email: { outboxDir: outbox, from: 'jobs@test' } })),
    });
    const id = uniqueId('every');
    assert.deepEqual(await jobs.schedules.create('send-email', payload, { id, every: '2s', priority: 2 }), { id });
    await assert.rejects(jobs.schedules.create('send-email', payload, { id, every: '1m' }), ScheduleExistsError);

    await worker.runUntil(async () => {
      const runs = await waitFor(async () => (await jobs.list({ type: 'send-email' })).filter((j) => j.id.startsWith(`${id}-`) && j.status === 'completed'), (r) => r.length >= 2, 60_000);
      assert.ok(runs.length >= 2, 'the schedule started runs that completed');
      for (const run of runs) assert.match(run.id, new RegExp(`^${id}-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`), 'a run is a job named after the schedule and its time');
      const record = await jobs.get(runs[0]!.id);
      assert.deepEqual([record.type, record.status, record.payload], ['send-email', 'completed', payload]);
      assert.equal((await jobs.temporal.workflow.getHandle(runs[0]!.id).describe()).raw.workflowExecutionInfo?.priority?.priorityKey, 2);
      const again = await jobs.enqueue('send-email', payload, { id: runs[0]!.id });
      assert.equal(again.existed, true, 'a run is idempotent by its job ID');
      assert.ok((await readdir(outbox)).includes(outboxFileFor(runs[0]!.id)));

      const [listed] = (await jobs.schedules.list()).filter((s) => s.id === id);
      assert.deepEqual([listed?.type, listed?.spec, listed?.paused, listed?.priority], ['send-email', 'every 2s', false, 2]);
      assert.ok(listed!.recentJobs.length >= 1 && listed!.recentJobs.every((j) => j.startsWith(`${id}-`)));

      await jobs.schedules.pause(id);
      const paused = await waitFor(async () => (await jobs.schedules.list()).find((s) => s.id === id)?.paused, (p) => p === true, 30_000);
      assert.equal(paused, true, 'the list shows it paused (visibility is eventually consistent)');
      const handle = jobs.temporal.schedule.getHandle(id);
      // A run's ID carries its second: a trigger in the second of the last scheduled run would reuse
      // that ID. The trigger waits out that second by the server's record of the run (the dev server
      // shares this host's clock).
      const lastRun = (await handle.describe()).info.recentActions.at(-1)?.scheduledAt.getTime() ?? 0;
      await new Promise((r) => setTimeout(r, Math.max(0, Math.floor(lastRun / 1000) * 1000 + 1000 - Date.now())));
      const taken = (await handle.describe()).info.numActionsTaken;
      await jobs.schedules.trigger(id);
      const after = await waitFor(() => handle.describe(), (d) => d.info.numActionsTaken > taken, 30_000);
      assert.equal(after.info.numActionsTaken, taken + 1, 'trigger starts one run, even while paused');
      const triggered = after.info.recentActions.at(-1)!.action.workflow.workflowId;
      assert.ok(triggered.startsWith(`${id}-`));
      assert.equal((await jobs.temporal.workflow.getHandle(triggered).result()).messageId, messageIdFor(triggered));
      await jobs.schedules.unpause(id);
      await jobs.schedules.delete(id);
    });
    assert.equal(await waitFor(async () => (await jobs.schedules.list()).some((s) => s.id === id), (listed) => !listed, 30_000), false);
    await assert.rejects(jobs.schedules.pause(id), ScheduleNotFoundError);
    await assert.rejects(new JobClient(env.client, { catalog, taskQueue: uniqueId('other') }).schedules.trigger(uniqueId('nope')), ScheduleNotFoundError);
  });

  it('validates the payload and the options at creation, before anything reaches Temporal', async () => {
    const jobs = new JobClient(env.client, { catalog, taskQueue: uniqueId('sched-bad') });
    await assert.rejects(jobs.schedules.create('send-email', { ...payload, to: 'nobody' }, { every: '1m' }), InvalidPayloadError);
    const invalid = async (options: Parameters<typeof jobs.schedules.create>[2], pattern: RegExp, type: 'send-email' | 'process-payment' = 'send-email') => {
      const p = type === 'send-email' ? payload : { paymentId: 'p-1', fromAccount: 'alice', toAccount: 'bob', amount: 100, currency: 'EUR' };
      await assert.rejects(jobs.schedules.create(type, p as never, options), (err: unknown) => err instanceof InvalidOptionError && pattern.test(err.message));
    };
    await invalid({}, /cron, every: give exactly one of them/);
    await invalid({ cron: '* * * * *', every: '1m' }, /cron, every: give exactly one of them/);
    await invalid({ every: '10ms' }, /every: must be a duration of at least 1s/);
    await invalid({ cron: 'soon' }, /cron: must be a cron line/);
    await invalid({ every: '1m', id: 'has space' }, /id: must be 1 to 175 characters/);
    await invalid({ every: '1m', priority: 9 }, /priority: must be a whole number from 1 \(highest\) to 5 \(lowest\)/);
    await invalid({ every: '1m' }, /type: process-payment derives its job ID from the payload/, 'process-payment');
    await invalid({ cron: '99 * * * *' }, /cron: .*Minute is not in range/);
    assert.deepEqual(await jobs.schedules.list(), []);
  });

  it('jobctl schedule create, list, pause, unpause, trigger and delete, with exit codes', async () => {
    const taskQueue = uniqueId('sched-cli');
    const ctlEnv = { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue };
    const ctl = (...args: string[]) => runCommand(process.execPath, [jobctl, ...args], ctlEnv);
    const id = uniqueId('nightly');
    const created = await ctl('schedule', 'create', 'send-email', JSON.stringify(payload), '--cron', '0 2 * * *', '--id', id, '--paused');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim(), id);
    // The list comes from visibility, which indexes a new schedule within a moment.
    const listed = await waitFor(() => ctl('schedule', 'list', '--json'), (r) => r.code !== 0 || r.stdout.includes(id), 30_000);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((s: { id: string; spec: string; paused: boolean }) => [s.id, s.spec, s.paused]), [[id, '0 2 * * *', true]]);
    assert.match((await ctl('schedule', 'list')).stdout, new RegExp(`${id} +send-email +0 2 \\* \\* \\* +paused`));
    for (const op of ['unpause', 'pause', 'delete']) {
      const done = await ctl('schedule', op, id);
      assert.equal(done.code, 0, done.stderr);
      assert.equal(done.stdout.trim(), `${op}d ${id}`);
    }
    const gone = await ctl('schedule', 'trigger', id);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /jobs:schedule-not-found/);
    const bad = await ctl('schedule', 'create', 'send-email', JSON.stringify({ ...payload, subject: '' }), '--every', '5m');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /jobs:invalid-payload: .*payload\.subject/);
    for (const args of [['enqueue', 'send-email', JSON.stringify(payload), '--priority', '0'], ['schedule', 'create', 'send-email', JSON.stringify(payload), '--every', '5m', '--priority', 'high']]) {
      const badPriority = await ctl(...args);
      assert.equal(badPriority.code, 2, args.join(' '));
      assert.match(badPriority.stderr, /--priority: must be a whole number from 1 \(highest\) to 5 \(lowest\)/);
    }
    const both = await ctl('schedule', 'create', 'send-email', JSON.stringify(payload));
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give exactly one of them/);
  });
});
