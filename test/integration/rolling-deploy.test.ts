import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { InvalidPayloadError } from '../../src/shared/errors';
import { bundleJobWorkflows } from '../../src/testing';
import { catalogV1 } from '../fixtures/rolling-deploy/catalog-v1';
import { catalogV2 } from '../fixtures/rolling-deploy/catalog-v2';
import { releaseOrderSignal, type ShipOrderResult } from '../fixtures/rolling-deploy/jobs';
import type { NoticeFile } from '../fixtures/rolling-deploy/activities';
import { repoRoot, uniqueId } from '../helpers/env';
import { freePort, startProcess, type Started } from '../helpers/processes';
import { killIfRunning, startTestTemporal, until, type TestTemporal } from '../helpers/worker-process';

// Two builds of one deployment (test/fixtures/rolling-deploy) as real worker processes on one dev
// server and one task queue: build 2's client adds optional fields that build 1 does not know, and
// build 2's ship-order workflow adds a step behind patched().
const fixture = path.join(repoRoot, 'test/fixtures/rolling-deploy');

describe('rolling deploy: two builds of the worker side by side on one task queue', function () {
  this.timeout(240_000);
  let temporal: TestTemporal;
  let outbox: string;
  let dataDir: string;
  const taskQueue = uniqueId('rolling');
  let v1: JobClient<typeof catalogV1.payloads>;
  let v2: JobClient<typeof catalogV2.payloads>;
  const workers: Started[] = [];

  async function startBuild(build: 'v1' | 'v2'): Promise<Started> {
    const worker = startProcess(
      process.execPath,
      ['--require', 'tsx/cjs', path.join(repoRoot, 'src/worker/main.ts'), '--worker', path.join(fixture, `worker-${build}.ts`)],
      {
        ...process.env,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        NOTICE_OUTBOX: outbox,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(await freePort()),
      },
      repoRoot,
    );
    workers.push(worker);
    await worker.waitFor('worker:started', 180_000);
    return worker;
  }

  async function stop(worker: Started): Promise<void> {
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exited, 0, worker.output());
  }

  before(async () => {
    temporal = await startTestTemporal();
    outbox = await mkdtemp(path.join(os.tmpdir(), 'rolling-outbox-'));
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'rolling-data-'));
    v1 = await JobClient.connect({ catalog: catalogV1, temporalAddress: temporal.address, taskQueue });
    v2 = await JobClient.connect({ catalog: catalogV2, temporalAddress: temporal.address, taskQueue });
  });

  // Each test starts the builds it needs: none may outlive its test (a failed one included).
  afterEach(() => Promise.all(workers.map(killIfRunning)));

  after(async () => {
    await v1?.close();
    await v2?.close();
    await temporal?.stop();
  });

  it('a newer client’s optional fields (top level and nested): every job completes on either build; build 1 ignores them, the job keeps them', async () => {
    const [w1, w2] = await Promise.all([startBuild('v1'), startBuild('v2')]);
    const newer = { to: 'ada', urgency: 'high' as const, message: { subject: 'Hi', body: 'Hello', footer: 'sent by build 2' } };

    // Each client is strict about what it sends, against its own schema.
    await assert.rejects(v1.enqueue('send-notice', newer as never), (err: unknown) => {
      assert.ok(err instanceof InvalidPayloadError, String(err));
      assert.deepEqual(err.issues.map((i) => i.path).sort(), ['payload', 'payload.message']);
      assert.match(err.message, /"urgency"/);
      assert.match(err.message, /"footer"/);
      return true;
    });
    await assert.rejects(v2.enqueue('send-notice', { ...newer, urgncy: 'high' } as never), /Unrecognized key: "urgncy"/);

    // Enqueue build 2 payloads until each build has run several of them (which worker takes an
    // activity task is the server's choice), plus build 1 payloads from the older client.
    const ran: Record<string, string[]> = { v1: [], v2: [] };
    const older: string[] = [];
    for (let round = 0; round < 6 && (ran.v1!.length < 3 || ran.v2!.length < 3); round++) {
      const ids = await Promise.all(Array.from({ length: 10 }, async () => (await v2.enqueue('send-notice', newer)).id));
      older.push(...(await Promise.all(Array.from({ length: 3 }, async () => (await v1.enqueue('send-notice', { to: 'bob', message: { subject: 'Hi', body: 'Hello' } })).id))));
      for (const id of ids) ran[(await v2.result(id)) as string]!.push(id);
    }
    for (const id of older) assert.match(String(await v1.result(id)), /^v[12]$/);
    assert.ok(ran.v1!.length >= 3 && ran.v2!.length >= 3, `build 1 ran ${ran.v1!.length}, build 2 ran ${ran.v2!.length}`);
    console.log(`      newer-client jobs: build 1 ran ${ran.v1!.length}, build 2 ran ${ran.v2!.length}; older-client jobs: ${older.length}, all completed`);

    const seen = async (id: string) => (JSON.parse(await readFile(path.join(outbox, `${id}.json`), 'utf8')) as NoticeFile).payload;
    for (const id of ran.v1!) {
      assert.deepEqual(await seen(id), { to: 'ada', message: { subject: 'Hi', body: 'Hello' } }, 'build 1 ran without the fields it does not know');
      const record = await v1.get(id);
      assert.equal(record.status, 'completed');
      assert.deepEqual(record.payload, newer, 'the job itself keeps every field the client sent');
    }
    for (const id of ran.v2!) assert.deepEqual(await seen(id), newer);
    // The worker's log reaches this process through a pipe, after the job's result may have: wait for the line (a CI run once read the output before it came).
    await w1.waitFor('"msg":"job:unknown-fields"', 15_000).catch(() => undefined);
    assert.match(w1.output(), /"fields":\["payload\.urgency","payload\.message\.footer"\][^\n]*"msg":"job:unknown-fields"/);
    assert.doesNotMatch(w2.output(), /job:unknown-fields/);
    assert.doesNotMatch(w1.output() + w2.output(), /jobs:invalid-payload/);
    await Promise.all([stop(w1), stop(w2)]);
  });

  it('ship-order changes shape behind patched(): jobs started on build 1 finish on build 2 by build 1’s path, new jobs take the new step, and the histories replay', async () => {
    const atWait = (ids: string[]) => until(`${ids.length} orders wait for release`, async () => (await Promise.all(ids.map((id) => v1.get(id)))).every((r) => r.step === 'wait'), 60_000);
    const w1 = await startBuild('v1');
    const started = await Promise.all(['o1', 'o2', 'o3'].map(async (o) => (await v1.enqueue('ship-order', { orderId: o }, { id: uniqueId(`old-${o}`) })).id));
    await atWait(started);
    await stop(w1);

    await startBuild('v2');
    const fresh = await Promise.all(['o4', 'o5'].map(async (o) => (await v2.enqueue('ship-order', { orderId: o }, { id: uniqueId(`new-${o}`) })).id));
    await atWait(fresh);
    for (const id of [...started, ...fresh]) await v2.temporal.workflow.getHandle(id).signal(releaseOrderSignal);
    for (const id of started) assert.deepEqual(((await v2.result(id)) as ShipOrderResult).steps, ['reserve@v1', 'ship@v2']);
    for (const id of fresh) assert.deepEqual(((await v2.result(id)) as ShipOrderResult).steps, ['reserve@v2', 'audit@v2', 'ship@v2']);

    // The same histories against the workflow bundles: build 2 replays all of them. Build 2
    // without patched() fails on every one: build 1's lack the audit step, and build 2's own carry
    // the patch marker, which code without patched() (or deprecatePatch()) no longer expects.
    const histories = async (ids: string[]) => Promise.all(ids.map(async (workflowId) => ({ workflowId, history: await v2.temporal.workflow.getHandle(workflowId).fetchHistory() })));
    const replay = async (workflows: string, ids: string[]) => {
      const failed: string[] = [];
      const workflowBundle = await bundleJobWorkflows(path.join(fixture, workflows));
      for await (const result of Worker.runReplayHistories({ workflowBundle }, await histories(ids))) if (result.error) failed.push(`${result.workflowId}: ${result.error.name}`);
      return failed;
    };
    assert.deepEqual(await replay('workflows-v2.ts', [...started, ...fresh]), []);
    const unpatched = await replay('workflows-v2-unpatched.ts', [...started, ...fresh]);
    assert.deepEqual(unpatched.map((f) => f.split(':')[0]).sort(), [...started, ...fresh].sort(), unpatched.join('\n'));
    assert.ok(unpatched.every((f) => /DeterminismViolationError/.test(f)), unpatched.join('\n'));
  });
});
