// The jobs database goes away for 20 s in the middle of a payment batch and comes back: a private
// PostgreSQL (initdb + pg_ctl in a temp folder, a free port; never the shared one), a real worker,
// the dev server.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { JobClient } from '../../src/client/job-client';
import { ensureDatabase, startLocalPostgres, type LocalPostgres } from '../../src/cluster/postgres';
import { freePortOn } from '../../src/cluster/ports';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { catalog } from '../../src/jobs/catalog';
import { builtInMigrations } from '../../src/jobs/database/migrations';
import type { Db } from '../../src/jobs/database/schema';
import { createAccount } from '../../src/jobs/database/seed';
import { ProcessPaymentErrorType, processPaymentJob } from '../../src/jobs/process-payment';
import { maxAttempts } from '../../src/shared/retry';
import { bundleWorkflows, createTestWorker, startDevServerEnv, uniqueId } from '../helpers/env';
import { assertPaymentInvariants, totalBalance } from '../helpers/payments';
import { createActivities, testActivityDeps } from '../helpers/worker';

type PaymentActivity = 'reserveFunds' | 'capturePayment' | 'releaseHold' | 'reverseCapture' | 'cancelHold';
const paymentActivities: PaymentActivity[] = ['reserveFunds', 'capturePayment', 'releaseHold', 'reverseCapture', 'cancelHold'];

/**
 * Payments in the batch, enqueued one every `spacingMs`; the database stops, for `downMs`, once
 * `stopAfterReleases` payments have released their hold (an observed point mid-batch, whatever the
 * machine's speed).
 */
const batch = { payments: 60, spacingMs: 250, stopAfterReleases: 5, downMs: 20_000 };

describe('process-payment while PostgreSQL is down for 20 s (dev server, private PostgreSQL)', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let server: LocalPostgres;
  let db: Db;
  let reportsDir: string;

  before(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pg-outage-'));
    reportsDir = path.join(dir, 'reports');
    server = await startLocalPostgres(path.join(dir, 'pg'), await freePortOn('127.0.0.1'));
    db = openDatabase(await ensureDatabase(server, 'jobs'));
    await migrateToLatest(db, builtInMigrations);
    [env, bundle] = await Promise.all([startDevServerEnv(), bundleWorkflows()]);
  });
  after(async () => {
    await db?.destroy();
    await server?.stop();
    await env?.teardown();
  });

  it('completes or dead-letters every payment for its own reason, conserves money, and burns no attempt on the outage', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = uniqueId('acct');
      await createAccount(db, { id, currency: 'EUR', balance: i === 5 ? 100 : 1_000_000 });
      ids.push(id);
    }
    const poor = ids[5]!;
    const totalBefore = await totalBalance(db, ids);

    // Every attempt of every payment step, and the failure type it ended with.
    const attempts: { paymentId: string; activity: PaymentActivity; attempt: number; failure?: string; at: number }[] = [];
    let released = 0;
    let enoughReleased!: () => void;
    const outageDue = new Promise<void>((resolve) => (enoughReleased = resolve));
    const real = createActivities(testActivityDeps(db, { reportsDir }));
    const wrap = (name: PaymentActivity) => async (input: Parameters<(typeof real)[PaymentActivity]>[0]) => {
      const { paymentId } = input as { paymentId: string };
      const record: (typeof attempts)[number] = { paymentId, activity: name, attempt: Context.current().info.attempt, at: Date.now() };
      attempts.push(record);
      try {
        const result = await real[name](input);
        if (name === 'releaseHold' && ++released === batch.stopAfterReleases) enoughReleased();
        return result;
      } catch (err) {
        record.failure = err instanceof ApplicationFailure ? (err.type ?? 'untyped') : String(err);
        throw err;
      }
    };
    const activities = { ...real, ...Object.fromEntries(paymentActivities.map((n) => [n, wrap(n)])) };
    const taskQueue = uniqueId('tq');
    const worker = await createTestWorker(env, bundle, { taskQueue, activities });
    const jobs = new JobClient(env.client, { catalog, taskQueue });

    // Every 10th payment goes to an unknown account, every 10th from the poor account (insufficient funds).
    const planned = Array.from({ length: batch.payments }, (_, i) => {
      const paymentId = uniqueId(`pay${i}`);
      const expect = i % 10 === 3 ? ProcessPaymentErrorType.UnknownAccount : i % 10 === 7 ? ProcessPaymentErrorType.InsufficientFunds : 'completed';
      const fromAccount = expect === ProcessPaymentErrorType.InsufficientFunds ? poor : ids[i % 5]!;
      const toAccount = expect === ProcessPaymentErrorType.UnknownAccount ? `nobody-${i}` : ids[(i + 1) % 5]!;
      return { payload: { paymentId, fromAccount, toAccount, amount: 1000 + i, currency: 'EUR' }, expect };
    });

    let outage = { from: 0, to: 0 };
    const run = async () => {
      const started = Date.now();
      const restart = (async () => {
        await outageDue;
        outage.from = Date.now();
        await server.restart(batch.downMs); // pg_ctl stop -m immediate, 20 s, pg_ctl start -w
        outage.to = Date.now();
      })();
      const handles = [];
      for (const p of planned) {
        handles.push((await jobs.enqueue('process-payment', p.payload)).handle);
        await new Promise((r) => setTimeout(r, batch.spacingMs));
      }
      await restart;
      await Promise.all(handles.map((h) => h.result().catch(() => undefined)));
      const seconds = (Date.now() - started) / 1000;
      // Read while the worker runs: the job records and the DLQ answer queries through it.
      const records = await Promise.all(planned.map((p) => jobs.get(`payment:${p.payload.paymentId}`)));
      return { seconds, records, dlq: await jobs.deadLetters.list({ type: 'process-payment', status: 'all' }) };
    };
    const { seconds, records, dlq } = await worker.runUntil(run);
    outage = { from: outage.from, to: outage.to };

    const settledBefore = attempts.filter((a) => a.at < outage.from && a.activity === 'releaseHold' && !a.failure).length;
    assert.ok(settledBefore > 0 && settledBefore < batch.payments, `the outage hit mid-batch (${settledBefore} payments had reached release before it)`);

    for (const [i, p] of planned.entries()) {
      const id = `payment:${p.payload.paymentId}`;
      const record = records[i]!;
      if (p.expect === 'completed') {
        assert.equal(record.status, 'completed', `${id}: ${JSON.stringify(record.error)}`);
      } else {
        assert.equal(record.status, 'failed', id);
        assert.equal(dlq.find((e) => e.id === id)?.error.type, p.expect, `${id} is dead-lettered for its own reason`);
      }
    }
    assert.deepEqual(
      dlq.filter((e) => e.error.type?.startsWith('jobs:database')),
      [],
      'no job is dead-lettered with a database error',
    );
    await assertPaymentInvariants(db, ids, totalBefore, planned.map((p) => p.payload.paymentId));

    const failures = attempts.filter((a) => a.failure);
    const byType = failures.reduce<Record<string, number>>((acc, a) => ({ ...acc, [a.failure!]: (acc[a.failure!] ?? 0) + 1 }), {});
    const business: string[] = [ProcessPaymentErrorType.UnknownAccount, ProcessPaymentErrorType.InsufficientFunds];
    for (const type of Object.keys(byType)) {
      assert.ok(type === 'jobs:database-unavailable' || business.includes(type), `an attempt failed with ${type}: only the outage and the planned business failures may fail one`);
    }
    // A business failure ends its step at the first attempt that reached the database: every earlier one met the outage.
    for (const a of failures.filter((f) => business.includes(f.failure!))) {
      const earlier = attempts.filter((b) => b.paymentId === a.paymentId && b.activity === a.activity && b.attempt < a.attempt);
      assert.equal(earlier.length, a.attempt - 1, `${a.paymentId} ${a.activity}: its earlier attempts ran`);
      for (const b of earlier) assert.equal(b.failure, 'jobs:database-unavailable', `${a.paymentId} ${a.activity} attempt ${b.attempt} failed with ${b.failure}`);
    }
    const highest = Math.max(...attempts.map((a) => a.attempt));
    const limit = maxAttempts(processPaymentJob.presets.step.retry);
    assert.ok(highest <= 2, `no step needed more than 2 of its ${limit} attempts (the highest was ${highest})`);
    const retried = new Set(attempts.filter((a) => a.attempt > 1).map((a) => `${a.paymentId}:${a.activity}`));
    console.log(
      `      outage ${((outage.to - outage.from) / 1000).toFixed(1)} s (stopped after ${settledBefore} payments had settled); ${batch.payments} payments in ${seconds.toFixed(1)} s; ` +
        `${attempts.length} step attempts, failed: ${JSON.stringify(byType)}; ${retried.size} steps needed a 2nd attempt; highest attempt ${highest} of ${limit}`,
    );
  });
});
