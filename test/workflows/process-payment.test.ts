import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ledgerSteps } from '../../src/activity-kit/ledger';
import type { Db } from '../../src/jobs/database/schema';
import { createAccount } from '../../src/jobs/database/seed';
import { JobClient } from '../../src/client/job-client';
import type { ProcessPaymentResult } from '../../src/jobs/process-payment';
import { type TestDb } from '../helpers/db';
import { deadLetterEntries } from '../helpers/dlq';
import { assertPaymentInvariants, balances as balancesOf, totalBalance } from '../helpers/payments';
import { createTestWorker, type TestWorker, startJobsTestEnv, stopJobsTestEnv, uniqueId } from '../helpers/env';
import { createActivities, testActivityDeps } from '../helpers/worker';
import { catalog } from '../../src/jobs/catalog';
import { ProcessPaymentErrorType } from '../../src/jobs/process-payment';

type Activities = ReturnType<typeof createActivities>;
type PaymentActivity = 'reserveFunds' | 'capturePayment' | 'releaseHold' | 'reverseCapture' | 'cancelHold';
/** Per payment ID, the activities whose first attempt fails: transiently before, or by a crash after, the commit. */
type Faults = Record<
  string,
  { transient?: PaymentActivity[]; crashAfterCommit?: PaymentActivity[]; fail?: PaymentActivity[]; waitFor?: Partial<Record<PaymentActivity, Promise<void>>> }
>;

describe('process-payment job (time-skipping, SQLite)', function () {
  let env: TestWorkflowEnvironment;
  let bundle: WorkflowBundleWithSourceMap;
  let testDb: TestDb;
  let db: Db;
  let reportsDir: string;

  before(async function () {
    ({ env, bundle, testDb } = await startJobsTestEnv());
    db = testDb.db;
    reportsDir = await mkdtemp(path.join(os.tmpdir(), 'payments-'));
  });
  after(async () => {
    await stopJobsTestEnv({ env, testDb });
  });

  /** A worker with the real activities, some of them failing as `faults` says; `calls` counts attempts. */
  async function setUp(faults: Faults = {}) {
    const taskQueue = uniqueId('tq');
    const real = createActivities(testActivityDeps(db, { reportsDir }));
    const calls: Record<string, number> = {};
    const wrap = (name: PaymentActivity) => async (input: Parameters<Activities[PaymentActivity]>[0]) => {
      const { paymentId } = input as { paymentId: string };
      const fault = faults[paymentId] ?? {};
      const first = Context.current().info.attempt === 1;
      calls[`${paymentId}:${name}`] = (calls[`${paymentId}:${name}`] ?? 0) + 1;
      await fault.waitFor?.[name];
      if (fault.fail?.includes(name)) throw ApplicationFailure.nonRetryable('injected permanent failure', 'test:permanent');
      if (first && fault.transient?.includes(name)) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      const result = await real[name](input);
      if (first && fault.crashAfterCommit?.includes(name)) throw new Error('worker crashed before reporting the result');
      return result;
    };
    const activities = { ...real, ...Object.fromEntries((['reserveFunds', 'capturePayment', 'releaseHold', 'reverseCapture', 'cancelHold'] as const).map((n) => [n, wrap(n)])) };
    const worker: TestWorker = await createTestWorker(env, bundle, { taskQueue, activities: activities });
    return { worker, jobs: new JobClient(env.client, { catalog, taskQueue }), calls, taskQueue };
  }

  async function accounts(...specs: [currency: string, balance: number][]): Promise<string[]> {
    const ids: string[] = [];
    for (const [currency, balance] of specs) {
      const id = uniqueId('acct');
      await createAccount(db, { id, currency, balance });
      ids.push(id);
    }
    return ids;
  }

  const balances = (ids: string[]) => balancesOf(db, ids);

  async function steps(jobId: string): Promise<string[]> {
    return (await ledgerSteps(db, jobId)).map((s) => s.step);
  }

  function failure(promise: Promise<unknown>): Promise<unknown> {
    return promise.then(() => assert.fail('the job should have failed'), (e: unknown) => e);
  }

  const pay = (fromAccount: string, toAccount: string, amount: number, currency = 'EUR') => ({ paymentId: uniqueId('pay'), fromAccount, toAccount, amount, currency });

  it('moves the money, records each step once and reports its steps', async () => {
    const [alice, bob] = await accounts(['EUR', 10_000], ['EUR', 0]);
    const { worker, jobs } = await setUp();
    const payload = pay(alice!, bob!, 1250);
    const { id, handle } = await jobs.enqueue('process-payment', payload);
    assert.equal(id, `payment:${payload.paymentId}`);
    const result = (await worker.runUntil(handle.result())) as ProcessPaymentResult;

    assert.deepEqual({ ...result, capturedAt: undefined }, { ...payload, capturedAt: undefined });
    assert.deepEqual(await balances([alice!, bob!]), [{ balance: 8750, held: 0 }, { balance: 1250, held: 0 }]);
    assert.deepEqual(await steps(id), ['reserve', 'capture', 'release']);
    const record = await jobs.get(id);
    assert.equal(record.status, 'completed');
    assert.equal(record.step, 'release');
    assert.deepEqual(record.steps, ['reserve', 'capture', 'release']);
    assert.deepEqual(record.progress, { done: 3, total: 3, unit: 'steps' });
    assert.equal(record.maxAttempts, 6);
    assert.equal(record.compensation, undefined);
  });

  it('reports the step it is in while it runs', async () => {
    const [alice, bob] = await accounts(['EUR', 10_000], ['EUR', 0]);
    const payload = pay(alice!, bob!, 100);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { worker, jobs } = await setUp({ [payload.paymentId]: { waitFor: { capturePayment: gate } } });
    const { id, handle } = await jobs.enqueue('process-payment', payload);
    await worker.runUntil(async () => {
      let record = await jobs.get(id);
      for (let i = 0; i < 100 && record.step !== 'capture'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        record = await jobs.get(id);
      }
      assert.equal(record.status, 'running');
      assert.equal(record.step, 'capture');
      assert.deepEqual(record.progress, { done: 1, total: 3, unit: 'steps' });
      release();
      await handle.result();
    });
    assert.deepEqual(await steps(id), ['reserve', 'capture', 'release']);
  });

  it('retries a transient database failure on the schedule, then succeeds', async () => {
    const [alice, bob] = await accounts(['EUR', 10_000], ['EUR', 0]);
    const payload = pay(alice!, bob!, 500);
    const { worker, jobs, calls } = await setUp({ [payload.paymentId]: { transient: ['reserveFunds', 'capturePayment'] } });
    const { id, handle } = await jobs.enqueue('process-payment', payload);
    await worker.runUntil(handle.result());

    assert.equal(calls[`${payload.paymentId}:reserveFunds`], 2);
    assert.equal(calls[`${payload.paymentId}:capturePayment`], 2);
    assert.deepEqual(await steps(id), ['reserve', 'capture', 'release']);
    assert.deepEqual(await balances([alice!, bob!]), [{ balance: 9500, held: 0 }, { balance: 500, held: 0 }]);
  });

  it('runs each step exactly once when the worker crashes after a commit', async () => {
    const [alice, bob] = await accounts(['EUR', 10_000], ['EUR', 0]);
    const payload = pay(alice!, bob!, 700);
    const { worker, jobs, calls } = await setUp({ [payload.paymentId]: { crashAfterCommit: ['reserveFunds', 'capturePayment', 'releaseHold'] } });
    const { id, handle } = await jobs.enqueue('process-payment', payload);
    await worker.runUntil(handle.result());

    assert.equal(calls[`${payload.paymentId}:capturePayment`], 2);
    assert.deepEqual(await steps(id), ['reserve', 'capture', 'release']);
    assert.deepEqual(await balances([alice!, bob!]), [{ balance: 9300, held: 0 }, { balance: 700, held: 0 }]);
    const entries = await db.selectFrom('entries').select('leg').where('payment_id', '=', payload.paymentId).execute();
    assert.deepEqual(entries.map((e) => e.leg).sort(), ['capture:credit', 'capture:debit']);
  });

  it('runs a payment once when it is enqueued twice', async () => {
    const [alice, bob] = await accounts(['EUR', 10_000], ['EUR', 0]);
    const payload = pay(alice!, bob!, 300);
    const { worker, jobs, calls } = await setUp();
    const first = await jobs.enqueue('process-payment', payload);
    const second = await jobs.enqueue('process-payment', payload);
    assert.equal(second.id, first.id);
    assert.equal(second.existed, true);
    await worker.runUntil(first.handle.result());
    assert.equal((await jobs.enqueue('process-payment', payload)).existed, true, 'a completed payment is not paid again');
    assert.equal(calls[`${payload.paymentId}:reserveFunds`], 1);
    assert.deepEqual(await balances([alice!, bob!]), [{ balance: 9700, held: 0 }, { balance: 300, held: 0 }]);
  });

  it('releases the hold when capture fails for good, then fails and is dead-lettered', async () => {
    const [alice] = await accounts(['EUR', 10_000]);
    const payload = pay(alice!, uniqueId('ghost'), 2000);
    const { worker, jobs, calls, taskQueue } = await setUp();
    const { id, handle } = await jobs.enqueue('process-payment', payload);
    // The DLQ workflow runs on this worker's task queue, so it is read while the worker runs.
    const [err, dlq] = await worker.runUntil(async () => [await failure(handle.result()), await deadLetterEntries(env.client, taskQueue, 'process-payment')] as const);

    assert.ok(err instanceof WorkflowFailedError);
    assert.deepEqual(await balances([alice!]), [{ balance: 10_000, held: 0 }]);
    assert.deepEqual(await steps(id), ['reserve', 'compensate:reserve']);
    assert.equal(calls[`${payload.paymentId}:capturePayment`], 1, 'a business failure is not retried');
    assert.equal(calls[`${payload.paymentId}:reverseCapture`], undefined, 'capture never took effect');
    const hold = await db.selectFrom('holds').select('status').where('payment_id', '=', payload.paymentId).executeTakeFirstOrThrow();
    assert.equal(hold.status, 'cancelled');
    const record = await jobs.get(id);
    assert.equal(record.status, 'failed');
    assert.equal(record.error?.type, ProcessPaymentErrorType.UnknownAccount);
    assert.equal(record.step, 'capture');
    assert.equal(record.attempts, 1);
    assert.equal(record.maxAttempts, 6);
    assert.deepEqual(record.compensation, { status: 'done', undone: ['reserve'] });
    const entry = dlq.find((e) => e.id === id);
    assert.equal(entry?.status, 'dead-lettered');
    assert.equal(entry?.error.type, ProcessPaymentErrorType.UnknownAccount);
  });

  it('reverses a capture and cancels the hold when a later step fails, even across a crash mid-compensation', async () => {
    const [alice, bob] = await accounts(['EUR', 10_000], ['EUR', 0]);
    const payload = pay(alice!, bob!, 4000);
    const { worker, jobs } = await setUp({ [payload.paymentId]: { fail: ['releaseHold'], crashAfterCommit: ['reverseCapture', 'cancelHold'] } });
    const { id, handle } = await jobs.enqueue('process-payment', payload);
    await worker.runUntil(failure(handle.result()));

    assert.deepEqual(await balances([alice!, bob!]), [{ balance: 10_000, held: 0 }, { balance: 0, held: 0 }]);
    assert.deepEqual(await steps(id), ['reserve', 'capture', 'compensate:capture', 'compensate:reserve']);
    const legs = await db.selectFrom('entries').select(['leg', 'amount']).where('payment_id', '=', payload.paymentId).execute();
    assert.deepEqual(legs.map((l) => l.leg).sort(), ['capture:credit', 'capture:debit', 'reversal:credit', 'reversal:debit']);
    assert.equal(legs.reduce((sum, l) => sum + l.amount, 0), 0);
    assert.deepEqual((await jobs.get(id)).compensation, { status: 'done', undone: ['capture', 'reserve'] });
  });

  it('keeps the ledger invariants across a batch of successes, failures, retries and crashes', async () => {
    const [a, b, c, usd] = await accounts(['EUR', 10_000], ['EUR', 5000], ['EUR', 0], ['USD', 1000]);
    const ids = [a!, b!, c!, usd!];
    const batch = [
      pay(a!, b!, 3000), // succeeds
      pay(b!, c!, 1000), // succeeds
      pay(c!, a!, 999_999), // insufficient funds at reserve
      pay(a!, uniqueId('ghost'), 500), // unknown to-account: reserve, then compensate
      pay(b!, a!, 700), // transient failures
      pay(a!, c!, 1200), // crashes after each commit
      pay(usd!, a!, 100, 'USD'), // currency mismatch at capture: reserve, then compensate
    ];
    const { worker, jobs } = await setUp({
      [batch[4]!.paymentId]: { transient: ['reserveFunds', 'capturePayment', 'releaseHold'] },
      [batch[5]!.paymentId]: { crashAfterCommit: ['reserveFunds', 'capturePayment', 'releaseHold'] },
      [batch[3]!.paymentId]: { crashAfterCommit: ['cancelHold'] },
    });
    const before = await totalBalance(db, ids);
    const started = await Promise.all(batch.map((p) => jobs.enqueue('process-payment', p)));
    // The jobs run concurrently on the worker; their results are awaited one by one, as the
    // time-skipping server mishandles many concurrent result long-polls.
    const outcomes = await worker.runUntil(async () => {
      const settled: PromiseSettledResult<unknown>[] = [];
      for (const s of started) settled.push(await s.handle.result().then((value) => ({ status: 'fulfilled' as const, value }), (reason: unknown) => ({ status: 'rejected' as const, reason })));
      return settled;
    });

    const why = outcomes.map((o) => (o.status === 'rejected' ? String(((o.reason as Error).cause as Error | undefined)?.cause ?? o.reason) : 'ok'));
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled', 'rejected'], why.join('\n'));
    await assertPaymentInvariants(db, ids, before, batch.map((p) => p.paymentId));
    assert.deepEqual((await balances(ids)).map((x) => x.balance), [10_000 - 3000 + 700 - 1200, 5000 + 3000 - 1000 - 700, 1000 + 1200, 1000]);
    const expectedSteps = [['reserve', 'capture', 'release'], ['reserve', 'capture', 'release'], [], ['reserve', 'compensate:reserve']];
    expectedSteps.push(['reserve', 'capture', 'release'], ['reserve', 'capture', 'release'], ['reserve', 'compensate:reserve']);
    for (const [i, s] of started.entries()) assert.deepEqual(await steps(s.id), expectedSteps[i], `ledger of payment ${i}`);
    const errorTypes = await Promise.all([2, 3, 6].map(async (i) => (await jobs.get(started[i]!.id)).error?.type));
    assert.deepEqual(errorTypes, [ProcessPaymentErrorType.InsufficientFunds, ProcessPaymentErrorType.UnknownAccount, ProcessPaymentErrorType.CurrencyMismatch]);
  });
});
