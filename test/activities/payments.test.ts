import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../../src/activities';
import { createPaymentsActivities } from '../../src/activities/payments';
import { runStep } from '../../src/testing/run-step';
import { ledgerSteps } from '../../src/activity-kit/ledger';
import type { Db } from '../../src/jobs/database/schema';
import { createAccount } from '../../src/jobs/database/seed';
import { ErrorType } from '../../src/shared/errors';
import { describeEachDatabase } from '../helpers/db';
import { uniqueId } from '../helpers/env';
import { ProcessPaymentErrorType } from '../../src/jobs/process-payment';

type Payments = ReturnType<typeof createPaymentsActivities>;

/** A payment step of one job execution. */
interface PaymentStepInput {
  jobId: string;
  execution: string;
  payload: unknown;
}

/** Runs an activity as attempt `attempt` of the input's job execution would, outside any worker. */
function run<R>(fn: (payload: unknown) => Promise<R>, input: PaymentStepInput, attempt = 1): Promise<R> {
  return runStep(fn, [input.payload], { jobId: input.jobId, execution: input.execution, attempt });
}

/** Expects a failure of `type`, non-retryable unless `retryable` is set. */
async function rejectsWith(promise: Promise<unknown>, type: string, retryable = false): Promise<ApplicationFailure> {
  const err = await promise.then(() => assert.fail(`expected ${type}`), (e: unknown) => e);
  assert.ok(err instanceof ApplicationFailure, String(err));
  assert.equal(err.type, type, err.message);
  assert.equal(err.nonRetryable, !retryable, `nonRetryable of ${type}`);
  return err;
}

async function account(db: Db, id: string) {
  return db.selectFrom('accounts').select(['balance', 'held']).where('id', '=', id).executeTakeFirstOrThrow();
}

describeEachDatabase('payments activities', (getDb) => {
  let acts: Payments;
  let alice: string;
  let bob: string;
  let input: PaymentStepInput;

  function payment(overrides: Record<string, unknown> = {}, jobId = uniqueId('job')): PaymentStepInput {
    const payload = { paymentId: uniqueId('pay'), fromAccount: alice, toAccount: bob, amount: 2500, currency: 'EUR', ...overrides };
    return { jobId, execution: uniqueId('run'), payload };
  }

  beforeEach(async () => {
    const { db } = getDb();
    acts = createPaymentsActivities({ db } as ActivityDeps);
    alice = uniqueId('alice');
    bob = uniqueId('bob');
    await createAccount(db, { id: alice, currency: 'EUR', balance: 10_000 });
    await createAccount(db, { id: bob, currency: 'EUR', balance: 0 });
    input = payment();
  });

  it('reserve holds the amount once, however often it is retried', async () => {
    const { db } = getDb();
    const first = await run(acts.reserveFunds, input);
    const again = await run(acts.reserveFunds, input, 2);
    assert.equal(first.replayed, false);
    assert.deepEqual(again, { ...first, replayed: true });
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 2500 });
    const hold = await db.selectFrom('holds').selectAll().where('job_id', '=', input.jobId).executeTakeFirstOrThrow();
    assert.equal(hold.status, 'held');
    assert.deepEqual(await ledgerSteps(db, input.jobId), [{ execution: input.execution, step: 'reserve' }]);
  });

  it('reserve rejects business failures without retrying and changes nothing', async () => {
    const { db } = getDb();
    await createAccount(db, { id: `${alice}-usd`, currency: 'USD', balance: 10_000 });
    await rejectsWith(run(acts.reserveFunds, payment({ fromAccount: 'nobody' })), ProcessPaymentErrorType.UnknownAccount);
    await rejectsWith(run(acts.reserveFunds, payment({ fromAccount: `${alice}-usd` })), ProcessPaymentErrorType.CurrencyMismatch);
    const short = await rejectsWith(run(acts.reserveFunds, payment({ amount: 10_001 })), ProcessPaymentErrorType.InsufficientFunds);
    assert.match(short.message, /has 100\.00 EUR available; the payment needs 100\.01/);
    await rejectsWith(run(acts.reserveFunds, payment({ amount: 0 })), ProcessPaymentErrorType.InvalidAmount);
    await rejectsWith(run(acts.reserveFunds, payment({ amount: 12.5 })), ProcessPaymentErrorType.InvalidAmount);
    await rejectsWith(run(acts.reserveFunds, payment({ currency: 'eur' })), ErrorType.InvalidPayload);
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 0 });
  });

  it('reserve refuses a payment ID another job holds, but re-holds for a redrive of the same job', async () => {
    const { db } = getDb();
    await run(acts.reserveFunds, input);
    const other = { ...input, jobId: uniqueId('job'), execution: uniqueId('run') };
    await rejectsWith(run(acts.reserveFunds, other), ProcessPaymentErrorType.DuplicatePayment);
    await rejectsWith(run(acts.reserveFunds, { ...input, execution: uniqueId('run') }), ProcessPaymentErrorType.DuplicatePayment);
    assert.deepEqual(await run(acts.cancelHold, input), { changed: true, replayed: false });
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 0 });
    const redrive = { ...input, execution: uniqueId('run') };
    assert.equal((await run(acts.reserveFunds, redrive)).replayed, false);
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 2500 });
    await rejectsWith(run(acts.reserveFunds, other), ProcessPaymentErrorType.DuplicatePayment);
  });

  it('capture and release move the money once, as entries that sum to zero', async () => {
    const { db } = getDb();
    await run(acts.reserveFunds, input);
    const captured = await run(acts.capturePayment, input);
    assert.deepEqual(await run(acts.capturePayment, input, 2), { ...captured, replayed: true });
    await run(acts.releaseHold, input);
    assert.deepEqual(await account(db, alice), { balance: 7500, held: 0 });
    assert.deepEqual(await account(db, bob), { balance: 2500, held: 0 });
    const { paymentId } = input.payload as { paymentId: string };
    const entries = await db.selectFrom('entries').select(['leg', 'account_id', 'amount']).where('payment_id', '=', paymentId).orderBy('leg').execute();
    assert.deepEqual(entries, [
      { leg: 'capture:credit', account_id: bob, amount: 2500 },
      { leg: 'capture:debit', account_id: alice, amount: -2500 },
    ]);
    const hold = await db.selectFrom('holds').select('status').where('payment_id', '=', paymentId).executeTakeFirstOrThrow();
    assert.equal(hold.status, 'released');
  });

  it('capture to an unknown account fails at once and leaves the hold for compensation', async () => {
    const { db } = getDb();
    const bad = payment({ toAccount: 'nobody' });
    await run(acts.reserveFunds, bad);
    await rejectsWith(run(acts.capturePayment, bad), ProcessPaymentErrorType.UnknownAccount);
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 2500 });
    assert.deepEqual(await run(acts.reverseCapture, bad), { changed: false, replayed: false });
    assert.deepEqual(await run(acts.cancelHold, bad), { changed: true, replayed: false });
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 0 });
  });

  it('undoing a capture waits (retryably) until the to-account has the money again', async () => {
    const { db } = getDb();
    await run(acts.reserveFunds, input);
    await run(acts.capturePayment, input);
    const spend = payment({ fromAccount: bob, toAccount: alice, amount: 2000 });
    await run(acts.reserveFunds, spend);
    const pending = await rejectsWith(run(acts.reverseCapture, input), ProcessPaymentErrorType.CompensationPending, true);
    assert.match(pending.message, /no longer has 25\.00 EUR available/);
    await run(acts.cancelHold, spend);
    assert.deepEqual(await run(acts.reverseCapture, input, 2), { changed: true, replayed: false });
    assert.deepEqual(await run(acts.cancelHold, input), { changed: true, replayed: false });
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 0 });
    assert.deepEqual(await account(db, bob), { balance: 0, held: 0 });
    const { paymentId } = input.payload as { paymentId: string };
    const legs = await db.selectFrom('entries').select(['leg', 'amount']).where('payment_id', '=', paymentId).execute();
    assert.deepEqual(legs.map((l) => l.leg).sort(), ['capture:credit', 'capture:debit', 'reversal:credit', 'reversal:debit']);
    assert.equal(legs.reduce((sum, l) => sum + l.amount, 0), 0);
  });

  it('undoes are no-ops when their step never took effect', async () => {
    assert.deepEqual(await run(acts.reverseCapture, input), { changed: false, replayed: false });
    assert.deepEqual(await run(acts.cancelHold, input), { changed: false, replayed: false });
  });

  it('concurrent reserves on one account never overdraw it', async () => {
    const { db } = getDb();
    const tries = Array.from({ length: 10 }, () => payment({ amount: 3000 }));
    const outcomes = await Promise.allSettled(tries.map((t) => run(acts.reserveFunds, t)));
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o.reason as ApplicationFailure).type);
    assert.equal(outcomes.length - refused.length, 3);
    assert.deepEqual(new Set(refused), new Set([ProcessPaymentErrorType.InsufficientFunds]));
    assert.deepEqual(await account(db, alice), { balance: 10_000, held: 9000 });
  });
});
