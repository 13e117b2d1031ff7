import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import type { JobClient } from '../../src/client/job-client';
import { UnknownJobTypeError } from '../../src/shared/errors';
import { repoRoot, uniqueId } from '../helpers/env';
import { runCommand, type Started } from '../helpers/processes';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, until, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { PENDING_ACTIVITY_STATE_SCHEDULED } = temporal.api.enums.v1.PendingActivityState;

/** Attempts of a local activity a job's history records (one marker per attempt that ended). */
const localAttempts = (events: HistoryEvent[]) => events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;

/**
 * Whether the retry after a local activity's last attempt has come due: its backoff timer fired
 * and the worker completed the workflow task that followed, where the pause gate held it or the
 * attempt ran.
 */
function retryCameDue(events: HistoryEvent[]): boolean {
  const lastAttempt = events.map((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').lastIndexOf(true);
  const fired = events.findIndex((e, i) => i > lastAttempt && e.timerFiredEventAttributes);
  return fired !== -1 && events.slice(fired).some((e) => e.workflowTaskCompletedEventAttributes);
}

// Pausing a job type on a real dev server (persisted to a file, so it can be restarted) with real
// worker processes (`node dist/worker/main.js`): what runs is counted in the jobs' histories and,
// for send-email, in the messages a real SMTP server accepted.
describe('jobctl pause / resume on a real server', function () {
  this.timeout(600_000);
  let temporal: TestTemporal;
  let smtp: TestSmtpServer | undefined;
  let jobs: JobClient | undefined;
  const workers: Started[] = [];

  before(async () => {
    temporal = await startTestTemporal();
  });
  after(async () => temporal?.stop());
  afterEach(async () => {
    for (const worker of workers.splice(0)) await killIfRunning(worker);
    await jobs?.close();
    jobs = undefined;
    await smtp?.close();
    smtp = undefined;
  });

  async function setup(extra: NodeJS.ProcessEnv = {}): Promise<{ env: WorkerEnv; worker: () => Promise<Started> }> {
    const env: WorkerEnv = { temporal, taskQueue: uniqueId('tq-pause'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'worker-data-')), extra };
    jobs = await jobClientFor(env);
    return { env, worker: async () => workers[workers.push(await startWorkerProcess(env)) - 1]! };
  }

  const history = async (id: string) => (await jobs!.temporal.workflow.getHandle(id).fetchHistory()).events ?? [];

  /** Whether every job shows the pause in its record: a job reports it once it has reached its pause gate. */
  const atPauseGate = async (ids: string[]) => (await Promise.all(ids.map((id) => jobs!.get(id)))).every((r) => r.paused !== undefined);

  it('50 jobs enqueued while paused wait through a worker and a server restart, start none, then all complete once after resume', async () => {
    const { env, worker } = await setup();
    const first = await worker();
    const paused = await jobs!.pauses.pause('noop', { reason: 'provider down', by: 'ops-test', settleMs: 500 });
    assert.equal(paused.alreadyPaused, false);
    const ids: string[] = [];
    for (let i = 0; i < 50; i += 1) ids.push((await jobs!.enqueue('noop', {}, { id: uniqueId(`paused-${i}`) })).id);
    // Every job holds at its gate before the restarts, so what follows checks the pause surviving them.
    await until('every job waits at its pause gate', () => atPauseGate(ids), 60_000);

    // The worker restarts, then the server does.
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    await temporal.stop();
    await temporal.start();
    await jobs!.close();
    jobs = await jobClientFor(env);
    await worker();
    // Nothing may run during this window. The jobs were held at their gates before the restarts, so
    // it checks only what the restarts change; a step that slipped through would land within a second.
    await new Promise((r) => setTimeout(r, 4000));

    assert.deepEqual(await jobs.pauses.get('noop'), paused.pause, 'the pause survived the server restart');
    for (const id of ids) assert.equal(localAttempts(await history(id)), 0, `${id} started no attempt while paused`);
    // A record's pause comes from the job's own query, which the restarted worker answers once it
    // has replayed the job (beyond the record's 1 s query deadline on a loaded machine): wait for it.
    await until('the restarted worker answers for the job', async () => (await jobs!.get(ids[0]!)).paused !== undefined, 30_000);
    const record = await jobs.get(ids[0]!);
    assert.equal(record.status, 'running');
    assert.deepEqual(record.paused, paused.pause);
    const stats = await jobs.pauses.list();
    assert.deepEqual(stats, [{ type: 'noop', ...paused.pause }]);

    const resumed = await jobs.pauses.resume('noop', { by: 'ops-test', settleMs: 500 });
    assert.deepEqual(resumed.wasPaused, paused.pause);
    assert.equal(resumed.signalled, 50, "resume released each job once");
    const results = await Promise.all(ids.map((id) => jobs!.result(id) as Promise<{ attempt: number }>));
    assert.deepEqual(results.map((r) => r.attempt), ids.map(() => 1));
    for (const id of ids) assert.equal(localAttempts(await history(id)), 1, `${id} ran its step once`);
    assert.equal((await jobs.get(ids[0]!)).paused, undefined);
  });

  it('an attempt running when its type is paused finishes; the next job waits', async () => {
    smtp = await startSmtpServer(undefined, { holdData: (attempt) => (attempt === 1 ? 3000 : undefined) });
    const { worker } = await setup({ SMTP_URL: smtp.url });
    await worker();
    const payload = { to: 'ada@example.com', subject: 'Paused', body: 'Finishes', userId: 'u-pause' };
    const running = await jobs!.enqueue('send-email', payload, { id: uniqueId('running') });
    await until('the attempt is in the middle of its SMTP transaction', () => smtp!.holding() === 1);
    const pausing = jobs!.pauses.pause('send-email', { settleMs: 500 });
    await running.handle.result();
    await pausing;
    assert.equal(smtp.received.length, 1, 'the running attempt delivered its message');
    assert.deepEqual((await jobs!.get(running.id)).status, 'completed');

    const waiting = await jobs!.enqueue('send-email', { ...payload, subject: 'Waits' }, { id: uniqueId('waiting') });
    await until('the waiting job reached its pause gate', () => atPauseGate([waiting.id]), 30_000);
    // A gate that let the step through would have it at the SMTP server within a second: 3 s of nothing is the check.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(smtp.received.length, 1, 'nothing else was sent while paused');
    const events = await history(waiting.id);
    assert.equal(events.filter((e) => e.activityTaskScheduledEventAttributes).length, 0, 'no attempt of the waiting job was scheduled');
    await jobs!.pauses.resume('send-email', { settleMs: 500 });
    await waiting.handle.result();
    assert.equal(smtp.received.length, 2);
  });

  it('a job paused between retries starts no attempt while paused and keeps its attempt count', async () => {
    const { worker } = await setup();
    await worker();
    // Attempts 1 and 2 fail; attempt 3 is due 5 s after attempt 2 (the noop schedule: 1s, 5s, 30s).
    const { id, handle } = await jobs!.enqueue('noop', { failAttempts: 2 }, { id: uniqueId('retrying') });
    await until('two attempts failed', async () => localAttempts(await history(id)) === 2, 30_000);
    // The pause must reach the job within the 5 s backoff: seeing the attempt (polled every 100 ms)
    // and the pause's sweep and signal take well under a second of it.
    await jobs!.pauses.pause('noop', { settleMs: 0 });
    await until('attempt 3 came due (its backoff timer fired)', async () => retryCameDue(await history(id)), 30_000);
    assert.equal(localAttempts(await history(id)), 2, 'no attempt while paused');
    const record = await jobs!.get(id);
    assert.equal(record.attempts, 2);
    assert.ok(record.paused, 'the record shows the pause');
    await jobs!.pauses.resume('noop', { settleMs: 0 });
    assert.deepEqual(await handle.result(), { attempt: 3 }, 'the third attempt ran as the third, not the fourth');
    assert.equal(localAttempts(await history(id)), 3);
  });

  // A regular activity's retries are scheduled by the server, not the workflow: the pause holds
  // them with Temporal's activity pause (src/client/pause-activities.ts, src/activity-kit/pause-on-failure.ts).
  const pendingActivities = async (id: string) => (await jobs!.temporal.workflow.getHandle(id).describe()).raw.pendingActivities ?? [];
  const pausedActivities = async (id: string) => (await pendingActivities(id)).filter((a) => a.paused);

  /**
   * Waits until a retry due `delayMs` after a refusal is `retryMarginMs` overdue: the margin covers
   * the failure's report and the server dispatching the retry, each well under a second even on a
   * loaded machine, so a retry the pause failed to hold would have reached the SMTP server.
   */
  const retryMarginMs = 5000;
  const pastRetryDue = (refusedAt: number, delayMs: number) => new Promise((r) => setTimeout(r, Math.max(0, refusedAt + delayMs + retryMarginMs - Date.now())));

  it('a regular activity waiting out a server-side retry delay starts no attempt while paused, and keeps its attempt number', async () => {
    // send-email's schedule: attempt 2 after 1 s, attempt 3 after 5 s. Attempts 1 and 2 are refused.
    const refusedAt: number[] = [];
    smtp = await startSmtpServer((attempt) => (attempt <= 2 ? (refusedAt.push(Date.now()), { code: 451, message: 'try again later' }) : undefined));
    const { worker } = await setup({ SMTP_URL: smtp.url });
    await worker();
    const payload = { to: 'ada@example.com', subject: 'Retried', body: 'After the pause', userId: 'u-pause-retry' };
    const { id, handle } = await jobs!.enqueue('send-email', payload, { id: uniqueId('backoff') });
    await until('attempt 2 was refused and the server waits to retry it', async () => smtp!.attempts() === 2 && (await pendingActivities(id)).some((a) => a.state === PENDING_ACTIVITY_STATE_SCHEDULED), 30_000);
    await jobs!.pauses.pause('send-email', { settleMs: 0 });
    assert.equal((await pausedActivities(id)).length, 1, 'the step waiting to be retried is paused on the server');
    await pastRetryDue(refusedAt[1]!, 5000);
    assert.equal(smtp.attempts(), 2, 'attempt 3 did not start while paused (it was due 5 s after attempt 2)');
    assert.equal((await jobs!.get(id)).attempts, 2);
    await jobs!.pauses.resume('send-email', { settleMs: 0 });
    await handle.result();
    assert.equal(smtp.attempts(), 3, 'then attempt 3 ran, as the third');
    assert.equal(smtp.received.length, 1);
    assert.equal((await pausedActivities(id)).length, 0);
  });

  it('an attempt that was running when its type was paused and then fails is not retried until the resume', async () => {
    // Attempt 1 is held in its SMTP transaction for 3 s, then refused; attempt 2 would follow 1 s later.
    const refusedAt: number[] = [];
    smtp = await startSmtpServer((attempt) => (attempt === 1 ? (refusedAt.push(Date.now()), { code: 451, message: 'try again later' }) : undefined), { holdData: (attempt) => (attempt === 1 ? 3000 : undefined) });
    const { worker } = await setup({ SMTP_URL: smtp.url });
    await worker();
    const payload = { to: 'ada@example.com', subject: 'Running', body: 'Fails while paused', userId: 'u-pause-running' };
    const { id, handle } = await jobs!.enqueue('send-email', payload, { id: uniqueId('running-fails') });
    await until('attempt 1 is in its SMTP transaction', () => smtp!.holding() === 1);
    await jobs!.pauses.pause('send-email', { settleMs: 0 });
    await until('attempt 1 was refused and its activity paused', async () => (await pausedActivities(id)).length === 1, 15_000);
    await pastRetryDue(refusedAt[0]!, 1000);
    assert.equal(smtp.attempts(), 1, 'no second attempt while paused');
    await jobs!.pauses.resume('send-email', { settleMs: 0 });
    await handle.result();
    assert.equal(smtp.attempts(), 2);
    assert.equal(smtp.received.length, 1);
  });

  it("a schedule's runs while its type is paused are accepted and wait, a schedule created during the pause too; all run after the resume", async () => {
    const { worker } = await setup();
    await worker();
    const before = (await jobs!.schedules.create('noop', {}, { id: uniqueId('sched-before'), every: '2s' })).id;
    const paused = await jobs!.pauses.pause('noop', { settleMs: 500 });
    assert.equal(paused.schedules, 1, 'the schedule was told');
    const during = (await jobs!.schedules.create('noop', {}, { id: uniqueId('sched-during'), every: '2s' })).id;
    const runsOf = async (scheduleId: string) => (await jobs!.schedules.get(scheduleId)).recentJobs;
    await until('both schedules started a run', async () => (await runsOf(before)).length > 0 && (await runsOf(during)).length > 0, 20_000);
    const held = [...(await runsOf(before)), ...(await runsOf(during))];
    await until('the runs wait at their pause gates', () => atPauseGate(held), 30_000);
    // A gate that let a run's step through would show it in the history within a second: 3 s of nothing is the check.
    await new Promise((r) => setTimeout(r, 3000));
    for (const run of held) {
      assert.equal(localAttempts(await history(run)), 0, `${run} started no attempt while paused`);
      assert.deepEqual((await jobs!.get(run)).paused, paused.pause, `${run} shows the pause`);
    }
    await jobs!.schedules.pause(before);
    await jobs!.schedules.pause(during);
    const resumed = await jobs!.pauses.resume('noop', { settleMs: 500 });
    assert.equal(resumed.schedules, 2);
    for (const run of held) assert.deepEqual(await jobs!.result(run), { attempt: 1 }, `${run} ran once after the resume`);
    await jobs!.schedules.delete(before);
    await jobs!.schedules.delete(during);
  });

  it('a debounced and a deduplicated job of a paused type start knowing the pause and wait; both run once after the resume', async () => {
    const { worker } = await setup();
    await worker();
    const paused = await jobs!.pauses.pause('noop', { settleMs: 0 });
    // The windows start their jobs from the worker (a debounce always; a dedupe when its window
    // answers first): each start must carry the pause, like an enqueue's.
    const key = uniqueId('key');
    const debounced = (await jobs!.enqueue('noop', {}, { debounce: { key, delay: '500ms' } })).id;
    const deduped = await Promise.all(Array.from({ length: 5 }, () => jobs!.enqueue('noop', {}, { dedupe: { key, ttl: '1m' } })));
    const dedupedId = deduped[0]!.id;
    assert.equal(new Set(deduped.map((d) => d.id)).size, 1);
    for (const id of [debounced, dedupedId]) {
      await until(`${id} started`, async () => (await jobs!.get(id)).status !== 'scheduled', 20_000);
      await until(`${id} waits at its pause gate`, () => atPauseGate([id]), 20_000);
    }
    // A gate that let a step through would show it in the history within a second: 3 s of nothing is the check.
    await new Promise((r) => setTimeout(r, 3000));
    for (const id of [debounced, dedupedId]) {
      assert.equal(localAttempts(await history(id)), 0, `${id} started no attempt while paused`);
      assert.deepEqual((await jobs!.get(id)).paused, paused.pause, `${id} shows the pause`);
    }
    await jobs!.pauses.resume('noop', { settleMs: 0 });
    for (const id of [debounced, dedupedId]) {
      assert.deepEqual(await jobs!.result(id), { attempt: 1 }, `${id} ran once after the resume`);
      assert.equal(localAttempts(await history(id)), 1);
    }
  });

  it('a job that never met a pause records no pause-gate marker and no signal; the figures of both', async () => {
    const { worker } = await setup();
    await worker();
    const plain = await jobs!.enqueue('noop', {}, { id: uniqueId('plain') });
    await plain.handle.result();
    const plainEvents = await history(plain.id);
    assert.ok(!plainEvents.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch' && JSON.stringify(e).includes('pause-gate')), 'no pause-gate marker');
    assert.ok(!plainEvents.some((e) => e.workflowExecutionSignaledEventAttributes), 'no signal');
    await jobs!.pauses.pause('noop', { settleMs: 0 });
    const held = await jobs!.enqueue('noop', {}, { id: uniqueId('held') });
    // Its history counts only once the job has waited at its gate.
    await until('the held job waits at its pause gate', () => atPauseGate([held.id]), 30_000);
    await jobs!.pauses.resume('noop', { settleMs: 0 });
    await held.handle.result();
    const heldEvents = await history(held.id);
    const kinds = (events: HistoryEvent[]) => events.map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes'))?.replace(/EventAttributes$/, '')).join(' ');
    console.log(`      history events of a noop job: ${plainEvents.length} never paused, ${heldEvents.length} enqueued while paused\n        never paused: ${kinds(plainEvents)}\n        paused: ${kinds(heldEvents)}`);
  });

  it('refuses an unknown type, naming it (client and jobctl)', async () => {
    const { env } = await setup();
    await assert.rejects(jobs!.pauses.pause('no-such-type'), (err: unknown) => err instanceof UnknownJobTypeError && /no-such-type/.test(err.message));
    const ran = await runCommand(process.execPath, [path.join(repoRoot, 'bin/jobctl.js'), 'pause', 'no-such-type', '--reason', 'x'], {
      ...process.env,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: env.taskQueue,
    }, repoRoot);
    assert.equal(ran.code, 2, ran.stderr);
    assert.match(ran.stderr, /unknown job type "no-such-type"/);
  });
});
