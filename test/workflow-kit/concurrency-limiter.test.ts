import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { concurrencyLimiterId, concurrencyLimiterWorkflowType } from '../../src/catalog/concurrency-limit';
import { bundleJobWorkflows, createJobTestWorker, startTimeSkippingEnv } from '../../src/testing';
import { limiterStateQuery, slotRequestedSignal } from '../../src/catalog/concurrency-signals';
import { limitsCatalog } from '../fixtures/limits/catalog';
import type { TenantWork } from '../fixtures/limits/jobs';
import { uniqueId } from '../helpers/env';

/** Activities whose steps end when the test says: `started` lists the jobs whose step began, in order. */
function gatedActivities() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  return {
    started,
    release: (jobId: string) => gates.get(jobId)?.(),
    releaseAll: () => gates.forEach((open) => open()),
    activities: {
      holdStep: (input: { jobId: string; payload: TenantWork }) =>
        new Promise<void>((resolve) => {
          started.push(input.jobId);
          // The fixture's step must heartbeat every 2 s, or its attempt times out.
          const context = Context.current();
          const beat = setInterval(() => context.heartbeat(), 500);
          gates.set(input.jobId, () => {
            clearInterval(beat);
            resolve();
          });
        }),
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The limiter workflow of a key (N = 2 in the fixture), on the time-skipping server (a team's own
// tests of a limited type run there too): who gets a freed slot, and what frees one when a job
// closes without giving it back.
describe('the concurrency limiter of a key (time-skipping)', function () {
  this.timeout(240_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;

  before(async () => {
    env = await startTimeSkippingEnv();
    bundle = await bundleJobWorkflows(require.resolve('../fixtures/limits/workflows'));
  });
  after(() => env?.teardown());

  it('hands a freed slot to the waiting job of highest priority; a cancelled waiter takes none; a terminated holder’s slot is freed by the holder check; the limiter closes when idle', async () => {
    const taskQueue = uniqueId('tq-limiter');
    const gated = gatedActivities();
    const worker = await createJobTestWorker(env, bundle, { taskQueue, catalog: limitsCatalog, activities: gated.activities });
    const jobs = new JobClient(env.client, { catalog: limitsCatalog, taskQueue });
    const work = { tenant: 'acme', ms: 0 };
    // Described, not awaited with result(): on the time-skipping server a result() wait skips time
    // to the next timer, which would run the limiter's holder check early.
    const statusOf = async (id: string) => (await env.client.workflow.getHandle(id).describe()).status.name;
    await worker.runUntil(async () => {
     try {
      const [a, b] = [uniqueId('a'), uniqueId('b')];
      await jobs.enqueue('tenant-work', work, { id: a });
      await jobs.enqueue('tenant-work', work, { id: b });
      await until('a and b hold the slots', () => gated.started.length === 2);
      const low = uniqueId('low');
      const cancelled = uniqueId('cancelled');
      const high = uniqueId('high');
      await jobs.enqueue('tenant-work', work, { id: low, priority: 5 });
      await jobs.enqueue('tenant-work', work, { id: cancelled, priority: 1 });
      await jobs.enqueue('tenant-work', work, { id: high, priority: 2 });
      const limiter = env.client.workflow.getHandle(concurrencyLimiterId(taskQueue, 'tenant-work', 'acme'));
      await until('three wait', async () => (await limiter.query(limiterStateQuery)).waiting === 3);
      assert.equal((await jobs.get(cancelled)).limitWait?.limit, 2);

      // A waiter that is cancelled withdraws: it never takes a slot.
      await jobs.cancel(cancelled);
      await until('the cancelled one closed', async () => (await statusOf(cancelled)) === 'CANCELLED');
      assert.ok(!gated.started.includes(cancelled));
      await until('the cancelled one left the queue', async () => (await limiter.query(limiterStateQuery)).waiting === 2);

      // b completes: its slot goes to `high` (priority 2) before `low` (5), whatever the order they came in.
      gated.release(b);
      await until('b completed', async () => (await statusOf(b)) === 'COMPLETED');
      await until('high runs', () => gated.started.includes(high));
      assert.ok(!gated.started.includes(low), 'low still waits');

      // a is terminated while holding its slot (no release is sent): the holder check frees it within 30 s.
      await env.client.workflow.getHandle(a).terminate('test');
      // Measured on the server's clock, which the limiter's 30 s check runs on.
      const terminatedAt = await env.currentTimeMs();
      await until('low runs once the holder check finds a closed', () => gated.started.includes(low), 45_000)
      const freedAfter = (await env.currentTimeMs()) - terminatedAt;
      // The check's 30 s, plus 2 s of margin for the check itself, the grant and low's first step.
      assert.ok(freedAfter <= 32_000, `the slot was freed ${freedAfter} ms after the holder was terminated (the check runs every 30 s)`);

      gated.release(high);
      gated.release(low);
      await until('high and low completed', async () => (await statusOf(high)) === 'COMPLETED' && (await statusOf(low)) === 'COMPLETED');
      assert.deepEqual(new Set(gated.started.slice(0, 2)), new Set([a, b]), 'a and b took the two slots');
      assert.deepEqual(gated.started.slice(2), [high, low], 'then high, then low; each step ran once');
      // Nothing holds or wants a slot: the limiter closes after a minute idle.
      await env.sleep('61s');
      await until('the limiter closed', async () => (await limiter.describe()).status.name === 'COMPLETED');
     } finally {
      // A failed check must not leave steps open: the worker would wait for them at shutdown.
      gated.releaseAll();
     }
    });
  });

  it('grants a request that comes in while it is still telling the previous grant at once, not at the next holder check', async () => {
    // The limiter alone, its two activities stubbed to isolate it: the first grant's activity
    // is held open until b's request has reached the limiter.
    const taskQueue = uniqueId('tq-limiter-alone');
    const told: string[][] = [];
    let letFirstTellEnd!: () => void;
    const firstTellHeld = new Promise<void>((resolve) => (letFirstTellEnd = resolve));
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: {
        tellSlotGranted: async (jobIds: string[]) => {
          told.push(jobIds);
          if (told.length === 1) await firstTellHeld;
          return [];
        },
        runningJobs: async (jobIds: string[]) => jobIds,
      },
    });
    const limiter = await env.client.workflow.signalWithStart(concurrencyLimiterWorkflowType, {
      workflowId: uniqueId('limiter'),
      taskQueue,
      args: [{ jobType: 'tenant-work', key: 'acme', limit: 2 }],
      signal: slotRequestedSignal,
      signalArgs: [{ jobId: 'a', priority: 3, limit: 2 }],
    });
    await worker.runUntil(async () => {
      try {
        await until('a is being told', () => told.length === 1);
        await limiter.signal(slotRequestedSignal, { jobId: 'b', priority: 3, limit: 2 });
        await until('b waits', async () => (await limiter.query(limiterStateQuery)).waiting === 1);
        letFirstTellEnd();
        await until('b is told', () => told.length === 2, 45_000);
        assert.deepEqual(told, [['a'], ['b']]);
        // Before the fix b's grant came only after the 30 s holder check's timer fired.
        const { events } = await limiter.fetchHistory();
        assert.equal(events?.filter((e) => e.timerFiredEventAttributes).length, 0, 'no timer fired before b was granted');
      } finally {
        letFirstTellEnd();
        await limiter.terminate('test done');
      }
    });
  });
});
