import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { JobClient } from '../../src/client/job-client';
import { peakOverlap, readAttemptLog } from '../fixtures/limits/overlap';
import { soakCatalog } from '../fixtures/soak/catalog';
import { planLoad, prepareLoad, runLoad } from '../helpers/cluster-load';
import { startClusterTestEnv, type ClusterTestEnv } from '../helpers/cluster';
import { repoRoot, uniqueId } from '../helpers/env';
import { startLoadSmtpServer, type LoadSmtpServer } from '../helpers/load-smtp';
import { formatFigures, reconcile } from '../helpers/reconcile';
import { startSyncSource, type TestSyncSource } from '../helpers/sync-source';

/** Jobs of the soak: a small run in `npm test`, 5,000 under `npm run soak`. */
const soakJobs = Number(process.env.SOAK_JOBS ?? 120);
/** Seconds between faults. */
const faultEvery = Number(process.env.SOAK_FAULT_INTERVAL ?? 15);
/** Jobs of the limited type (`tenant-work`, at most 2 at once per tenant) beside the mixed load. */
const limitedJobs = Math.max(24, Math.round(soakJobs / 10));

/** Seconds that payments are paused for, once half the load is enqueued. */
const pauseFor = Number(process.env.SOAK_PAUSE_SECONDS ?? 10);

/** Retries an operator call that a fault interrupted (a node or PostgreSQL is down for seconds). */
async function untilDone<T>(call: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (err) {
      if (tries >= 60) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

describe(`soak: ${soakJobs} mixed jobs of 4 tenants (fairness keys) and ${limitedJobs} limited to 2 at once per tenant, on the native cluster while nodes, workers and PostgreSQL fail on a timer, payments paused and resumed midway`, function () {
  this.timeout((20 + soakJobs / 60) * 60_000);
  let env: ClusterTestEnv;
  let smtp: LoadSmtpServer;
  let source: TestSyncSource;

  before(async function () {
    env = await startClusterTestEnv();
    smtp = await startLoadSmtpServer();
    source = await startSyncSource();
  });
  after(async () => {
    await env?.stop();
    await smtp?.close();
    await source?.close();
  });

  it('reconciles exactly: enqueued = completed + DLQ + discarded, no (job, step) twice, money conserved', async () => {
    const taskQueue = uniqueId('tq');
    // The built-in worker plus a team's type with a per-key concurrency limit (test/fixtures/soak).
    const limitsLog = path.join(env.tmpDir, `${taskQueue}-attempts.log`);
    const workers = await env.startWorkers(taskQueue, 3, {
      SMTP_URL: smtp.url,
      SYNC_SOURCE_URL: source.url,
      DURABLE_JOBS_WORKER: path.join(repoRoot, 'test/fixtures/soak/worker.ts'),
      NODE_OPTIONS: '--require tsx/cjs',
      LIMITS_LOG: limitsLog,
    });
    const plan = planLoad({ count: soakJobs, prefix: `s${randomUUID().slice(0, 8)}`, transientShare: 0.1, permanentShare: 0.05 });
    await prepareLoad(plan, env.db, source);
    const jobs = env.jobs(taskQueue);
    const load = runLoad(jobs, plan);
    const limited = new JobClient(env.client, { catalog: soakCatalog, taskQueue });
    const limitedIds = await Promise.all(
      Array.from({ length: limitedJobs }, (_, i) => untilDone(() => limited.enqueue('tenant-work', { tenant: `t${i % 4}`, ms: 300 }, { id: `${plan.prefix}-limited-${i}` })).then((r) => r.id)),
    );
    /** When each killed worker process died: its attempts end there. */
    const killedAt = new Map<number, number>();

    // Faults in turn, one every `faultEvery` seconds, until the load has settled. The timer is the
    // soak's design, not a wait for progress: no check depends on how far the load got when a fault
    // struck (each is logged with its progress), only on what the reconciliation finds at the end.
    const faults: string[] = [];
    let finished = false;
    const injector = (async () => {
      for (let round = 0; !finished; round++) {
        await new Promise((r) => setTimeout(r, faultEvery * 1000));
        if (finished) break;
        const at = `${load.ids.filter(Boolean).length} enqueued/${load.settled()} settled`;
        switch (round % 3) {
          case 0: {
            const node = env.cluster.nodes[1]!;
            await node.kill();
            // 3 s down: the length of the fault.
            await new Promise((r) => setTimeout(r, 3000));
            await node.start();
            faults.push(`node-2 SIGKILL@${at}`);
            break;
          }
          case 1: {
            const worker = workers[Math.floor(round / 3) % workers.length]!;
            const pid = worker.process().child.pid;
            await worker.kill();
            if (pid !== undefined) killedAt.set(pid, Date.now());
            // 3 s down: the length of the fault.
            await new Promise((r) => setTimeout(r, 3000));
            await worker.start();
            faults.push(`${worker.name} SIGKILL@${at}`);
            break;
          }
          default:
            await env.cluster.localPostgres!.restart(3000);
            faults.push(`PostgreSQL restart@${at}`);
        }
      }
    })();
    // Payments paused for a while once half the load is enqueued, through the faults, then resumed:
    // the jobs it held wait and then run, and the reconciliation below still holds exactly.
    const pause = (async () => {
      while (load.ids.filter(Boolean).length < plan.jobs.length / 2) await new Promise((r) => setTimeout(r, 200));
      const enqueuedAtPause = load.ids.filter(Boolean).length;
      const paused = await untilDone(() => jobs.pauses.pause('process-payment', { reason: 'soak', by: 'soak', settleMs: 1000 }));
      // The pause's length is the scenario (SOAK_PAUSE_SECONDS); it started on the enqueued count above.
      await new Promise((r) => setTimeout(r, pauseFor * 1000));
      const held = await untilDone(() => jobs.pauses.openJobs('process-payment'));
      const resumed = await untilDone(() => jobs.pauses.resume('process-payment', { by: 'soak', settleMs: 1000 }));
      return `paused process-payment for ${pauseFor}s from ${enqueuedAtPause} enqueued: ${paused.signalled} signalled at pause, ${held} open when resumed, ${resumed.signalled} released`;
    })();
    // Awaited after the load; a failure meanwhile must not be an unhandled rejection.
    pause.catch(() => undefined);
    try {
      const outcomes = await load.done;
      finished = true;
      await injector;
      console.log(`      [soak pause] ${await pause}`);
      // The limited type: every job completed, and never more than 2 of a tenant's ran at once.
      for (const id of limitedIds) await untilDone(() => limited.result(id));
      const attempts = await readAttemptLog(limitsLog);
      const peaks = ['t0', 't1', 't2', 't3'].map((tenant) => peakOverlap(attempts, tenant, killedAt));
      console.log(`      [soak limit] ${limitedJobs} tenant-work jobs completed; peak running per tenant ${peaks.join('/')} (limit 2); ${attempts.filter((a) => a.event === 'start').length} attempts`);
      for (const peak of peaks) assert.ok(peak <= 2, `a tenant ran ${peak} at once`);
      for (const id of limitedIds) assert.ok(attempts.some((a) => a.jobId === id && a.event === 'end'), `${id} ran its step`);
      const figures = await reconcile({ plan, load, outcomes, jobs, db: env.db, smtp, reportsDir: path.join(env.tmpDir, 'reports'), discardEvery: 2 });
      console.log(formatFigures('soak', figures, { faults: faults.length }));
      console.log(`      [soak faults] ${faults.join(', ')}`);
    } finally {
      finished = true;
      await Promise.all(workers.map((w) => w.kill()));
    }
  });
});
