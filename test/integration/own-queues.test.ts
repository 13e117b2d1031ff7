import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { runDoctor } from '../../src/jobctl/doctor';
import { JobClient } from '../../src/client/job-client';
import { planQueues } from '../../src/catalog/task-queues';
import { ownQueuesCatalog } from '../fixtures/own-queues/catalog';
import { repoRoot, uniqueId } from '../helpers/env';
import { startProcess, type Started } from '../helpers/processes';
import { killIfRunning, startTestTemporal, until, type TestTemporal } from '../helpers/worker-process';

// A team gave every job type a queue of its own (test/fixtures/own-queues): the shared queue holds
// none of its jobs, but its DLQ, debounce windows and per-key limiter run there. One real worker
// process over that catalog must serve it.
describe('a catalog whose every type has a queue of its own (real dev server, worker process)', function () {
  this.timeout(300_000);
  let temporal: TestTemporal;
  let client: JobClient<typeof ownQueuesCatalog.payloads>;
  let worker: Started | undefined;
  const taskQueue = uniqueId('own-queues');

  before(async () => {
    temporal = await startTestTemporal();
    client = await JobClient.connect({ catalog: ownQueuesCatalog, temporalAddress: temporal.address, taskQueue });
    worker = startProcess(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(repoRoot, 'src/worker/main.ts'), '--worker', path.join(repoRoot, 'test/fixtures/own-queues/worker.ts')],
      { ...process.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue, DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'own-queues-')), DATABASE_URL: undefined, LOG_LEVEL: 'info', LOG_FORMAT: 'json', METRICS_PORT: '0' },
      repoRoot,
    );
    await worker.waitFor(`"taskQueue":"${taskQueue}",`, 180_000);
  });

  after(async () => {
    if (worker) await killIfRunning(worker);
    await client?.close();
    await temporal?.stop();
  });

  it('polls the shared queue beside the three of its own, and says what runs there', () => {
    const started = worker!.output().split('\n').filter((line) => line.includes('"msg":"worker:started"')).map((line) => JSON.parse(line) as { taskQueue: string; types: string[]; runs?: string });
    assert.deepEqual(started.map((s) => s.taskQueue).sort(), [taskQueue, `${taskQueue}:brittle`, `${taskQueue}:digests`, `${taskQueue}:tenants`]);
    const shared = started.find((s) => s.taskQueue === taskQueue)!;
    assert.deepEqual(shared.types, []);
    assert.match(shared.runs ?? '', /dead-letter queues, debounce and dedupe windows, per-key concurrency limiter/);
  });

  it('a dead-lettered job reaches the DLQ, a debounced job runs, and 10 jobs limited per key all complete', async () => {
    const limited = await Promise.all(Array.from({ length: 10 }, (_, i) => client.enqueue('tenant-work', { tenant: 'acme', ms: 300 }, { id: uniqueId(`acme-${i}`) })));
    const brittle = await client.enqueue('brittle', { note: 'n1' }, { id: uniqueId('brittle') });
    const digest = await client.enqueue('digest', { note: 'weekly' }, { debounce: { key: uniqueId('digest'), delay: '300ms' } });
    for (const job of limited) await client.result(job.id);
    for (const job of limited) assert.equal((await client.get(job.id)).status, 'completed', job.id);
    assert.equal(await client.result(digest.id), 'sent weekly');
    await until('the brittle job is in its DLQ', async () => (await client.deadLetters.list({ type: 'brittle' })).some((e) => e.id === brittle.id));
    const [entry] = await client.deadLetters.list({ type: 'brittle', id: brittle.id });
    assert.match(entry!.error.message, /brittle: n1 broke on attempt 2/);
    assert.equal((await client.get(brittle.id)).status, 'failed');
  });

  it('cancels a job whose step never heartbeats: the library heartbeats for it, so the job ends cancelled, not after its step', async () => {
    const job = await client.enqueue('slow-export', { ms: 60_000 }, { id: uniqueId('export') });
    const { PENDING_ACTIVITY_STATE_STARTED: STARTED } = proto.api.enums.v1.PendingActivityState;
    await until('its attempt runs', async () => (await client.temporal.workflow.getHandle(job.id).describe()).raw.pendingActivities?.some((a) => a.state === STARTED) === true);
    const at = Date.now();
    await client.cancel(job.id);
    await until('the job is cancelled', async () => (await client.get(job.id)).status === 'cancelled', 50_000);
    // The step alone would take 60 s: heartbeats every 1 s, sent at most every 2 s, bring the cancel in a few.
    const ms = Date.now() - at;
    assert.ok(ms < 50_000, `cancelled ${ms} ms after the request`);
    console.log(`      a step without heartbeats: cancelled ${ms} ms after the request`);
  });

  it('jobctl doctor finds the shared queue polled', async () => {
    const taskQueues = planQueues(taskQueue, ownQueuesCatalog.definitions).map((p) => p.taskQueue);
    const report = await runDoctor(client.temporal, { address: temporal.address, sharedQueue: taskQueue, taskQueues });
    const queues = Object.fromEntries(report.checks.filter((c) => c.name.startsWith('task queue')).map((c) => [c.name, c.status]));
    assert.deepEqual(queues, {
      [`task queue ${taskQueue} (shared)`]: 'ok',
      [`task queue ${taskQueue}:tenants`]: 'ok',
      [`task queue ${taskQueue}:brittle`]: 'ok',
      [`task queue ${taskQueue}:digests`]: 'ok',
    });
  });
});
