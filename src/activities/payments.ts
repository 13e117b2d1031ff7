import { ApplicationFailure } from '@temporalio/common';
import { sql } from 'kysely';
import { runOnce } from '../activity-kit';
import type { Trx } from '../jobs/database/schema';
import { ProcessPaymentErrorType, formatMinorUnits, type ProcessPaymentPayload } from '../jobs/process-payment';
import { processPaymentPayload } from '../jobs/payloads/process-payment';
import { databaseFailure, nonRetryable, retryable, rideOutDatabaseOutage } from '../activity-kit';
import { ErrorType } from '../workflow-kit';
import type { ActivityDeps } from './deps';
import { accountFor, holdOf, ownHold, post, setHoldStatus } from './payment-records';
import { whileHeartbeating } from '../activity-kit';
import { currentJob, parseJobPayload } from '../activity-kit';

/** Result of `reserveFunds`. */
export interface ReserveResult {
  /** The account the hold is on. */
  accountId: string;
  /** Minor units held. */
  amount: number;
  /** When the hold was placed (ISO 8601). */
  heldAt: string;
  /** True when an earlier attempt had already committed this step. */
  replayed: boolean;
}

/** Result of `capturePayment`. */
export interface CaptureResult {
  /** When the money moved (ISO 8601). */
  capturedAt: string;
  /** True when an earlier attempt had already committed this step. */
  replayed: boolean;
}

/** Result of `releaseHold`, `reverseCapture` and `cancelHold`. */
export interface StepResult {
  /** False when there was nothing to do (an undo of a step that never took effect). */
  changed: boolean;
  /** True when an earlier attempt had already committed this step. */
  replayed: boolean;
}

/** A primary key taken by a concurrent attempt of the same step: the retry finds its ledger row. */
const UNIQUE_VIOLATION_CODE = /^(23505|SQLITE_CONSTRAINT_PRIMARYKEY|SQLITE_CONSTRAINT_UNIQUE)$/;

/**
 * Builds the `process-payment` activities. Each takes the job's payload and runs once per job
 * execution through the ledger; the job's ID and execution come from the attempt (`currentJob`).
 */
export function createPaymentsActivities(deps: ActivityDeps) {
  /** Runs one step of the job whose activity calls it, once per execution, through the ledger. */
  async function once<T extends object>(payload: unknown, step: string, work: (trx: Trx, p: ProcessPaymentPayload, jobId: string) => Promise<T>) {
    const payment = parsePayment(payload);
    const { jobId } = currentJob();
    return whileHeartbeating(async (signal) => {
      try {
        // A restart of seconds is waited out in this attempt; a longer outage fails it as jobs:database-unavailable.
        const { result, replayed } = await rideOutDatabaseOutage(() => runOnce(deps.db, step, (trx) => work(trx, payment, jobId), signal));
        return { ...result, replayed };
      } catch (err) {
        throw classifyDbError(err);
      }
    });
  }

  return {
    /** Step `reserve`: holds the amount on the from-account, so concurrent payments cannot spend it. */
    reserveFunds: (payload: unknown): Promise<ReserveResult> =>
      once(payload, 'reserve', async (trx, p, jobId) => {
        const from = await accountFor(trx, p.fromAccount, p.currency);
        const hold = await holdOf(trx, p.paymentId);
        if (hold && hold.job_id !== jobId) {
          throw nonRetryable(ProcessPaymentErrorType.DuplicatePayment, `payment "${p.paymentId}" is already being paid by job "${hold.job_id}"`);
        }
        // A redrive of this job may hold again only after the earlier execution undid its hold.
        if (hold && hold.status !== 'cancelled') {
          throw nonRetryable(ProcessPaymentErrorType.DuplicatePayment, `payment "${p.paymentId}" already has a ${hold.status} hold from an earlier run of this job`);
        }
        // Conditional: a concurrent payment that got there first is seen, so the account is never overdrawn.
        const reserved = await trx
          .updateTable('accounts')
          .set({ held: sql<number>`held + ${p.amount}` })
          .where('id', '=', from.id)
          .where(sql<boolean>`balance - held >= ${p.amount}`)
          .executeTakeFirst();
        if (Number(reserved.numUpdatedRows) === 0) {
          throw nonRetryable(
            ProcessPaymentErrorType.InsufficientFunds,
            `account "${from.id}" has ${formatMinorUnits(from.balance - from.held)} ${from.currency} available; the payment needs ${formatMinorUnits(p.amount)}`,
          );
        }
        const heldAt = new Date().toISOString();
        const row = { job_id: jobId, account_id: from.id, amount: p.amount, status: 'held' as const, updated_at: heldAt };
        if (hold) await trx.updateTable('holds').set(row).where('payment_id', '=', p.paymentId).execute();
        else await trx.insertInto('holds').values({ payment_id: p.paymentId, ...row }).execute();
        return { accountId: from.id, amount: p.amount, heldAt };
      }),

    /** Step `capture`: moves the held money to the to-account, as a debit and a credit that sum to zero. */
    capturePayment: (payload: unknown): Promise<CaptureResult> =>
      once(payload, 'capture', async (trx, p, jobId) => {
        await ownHold(trx, jobId, p, 'held');
        const to = await accountFor(trx, p.toAccount, p.currency);
        const taken = await trx
          .updateTable('accounts')
          .set({ balance: sql<number>`balance - ${p.amount}`, held: sql<number>`held - ${p.amount}` })
          .where('id', '=', p.fromAccount)
          .where(sql<boolean>`held >= ${p.amount}`)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 0) {
          throw nonRetryable(ErrorType.Unexpected, `account "${p.fromAccount}" no longer holds ${formatMinorUnits(p.amount)} for payment "${p.paymentId}"`);
        }
        await trx.updateTable('accounts').set({ balance: sql<number>`balance + ${p.amount}` }).where('id', '=', to.id).execute();
        const capturedAt = new Date().toISOString();
        await post(trx, p, 'capture', p.fromAccount, to.id, capturedAt);
        await setHoldStatus(trx, p.paymentId, 'captured', capturedAt);
        return { capturedAt };
      }),

    /** Step `release`: closes the captured hold. */
    releaseHold: (payload: unknown): Promise<StepResult> =>
      once(payload, 'release', async (trx, p, jobId) => {
        await ownHold(trx, jobId, p, 'captured');
        await setHoldStatus(trx, p.paymentId, 'released', new Date().toISOString());
        return { changed: true };
      }),

    /**
     * Undoes `capture` (step `compensate:capture`): moves the money back with reversal entries and
     * reopens the hold. Does nothing if the capture never took effect; retried (process-payment:compensation-pending)
     * while the to-account lacks the money.
     */
    reverseCapture: (payload: unknown): Promise<StepResult> =>
      once(payload, 'compensate:capture', async (trx, p, jobId) => {
        const hold = await holdOf(trx, p.paymentId);
        if (hold?.job_id !== jobId || (hold.status !== 'captured' && hold.status !== 'released')) return { changed: false };
        const returned = await trx
          .updateTable('accounts')
          .set({ balance: sql<number>`balance - ${p.amount}` })
          .where('id', '=', p.toAccount)
          .where(sql<boolean>`balance - held >= ${p.amount}`)
          .executeTakeFirst();
        if (Number(returned.numUpdatedRows) === 0) {
          throw retryable(
            ProcessPaymentErrorType.CompensationPending,
            `account "${p.toAccount}" no longer has ${formatMinorUnits(p.amount)} ${p.currency} available to return for payment "${p.paymentId}"; retrying until it has`,
          );
        }
        await trx
          .updateTable('accounts')
          .set({ balance: sql<number>`balance + ${p.amount}`, held: sql<number>`held + ${p.amount}` })
          .where('id', '=', p.fromAccount)
          .execute();
        const at = new Date().toISOString();
        await post(trx, p, 'reversal', p.toAccount, p.fromAccount, at);
        await setHoldStatus(trx, p.paymentId, 'held', at);
        return { changed: true };
      }),

    /** Undoes `reserve` (step `compensate:reserve`): cancels the hold. Does nothing if there is none. */
    cancelHold: (payload: unknown): Promise<StepResult> =>
      once(payload, 'compensate:reserve', async (trx, p, jobId) => {
        const hold = await holdOf(trx, p.paymentId);
        if (hold?.job_id !== jobId || hold.status === 'cancelled') return { changed: false };
        if (hold.status !== 'held') {
          throw retryable(ProcessPaymentErrorType.CompensationPending, `payment "${p.paymentId}" is ${hold.status}; its capture must be reversed before the hold is cancelled`);
        }
        await trx.updateTable('accounts').set({ held: sql<number>`held - ${hold.amount}` }).where('id', '=', hold.account_id).execute();
        await setHoldStatus(trx, p.paymentId, 'cancelled', new Date().toISOString());
        return { changed: true };
      }),
  };
}

/** The payload, or a non-retryable failure: process-payment:invalid-amount for a bad amount, else jobs:invalid-payload. */
function parsePayment(input: unknown): ProcessPaymentPayload {
  // A step scheduled by a workflow of 0.2 got `{ jobId, execution, payload }`; no payment has those fields.
  const payload = isLegacyInput(input) ? input.payload : input;
  const amount: unknown = typeof payload === 'object' && payload !== null ? (payload as { amount?: unknown }).amount : undefined;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
    throw nonRetryable(ProcessPaymentErrorType.InvalidAmount, `amount must be a positive whole number of minor units, got ${JSON.stringify(amount)}`);
  }
  return parseJobPayload('process-payment', processPaymentPayload, payload);
}

/**
 * Names a database error: a lost race on the ledger's primary key is retried (the retry reads the
 * winner's result); the rest as classified for every activity (jobs:database-unavailable,
 * jobs:database-config retried; jobs:database-rejected not).
 */
function classifyDbError(err: unknown): unknown {
  if (err instanceof ApplicationFailure) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNIQUE_VIOLATION_CODE.test(code)) {
    return retryable(ErrorType.Unexpected, `a concurrent attempt wrote the same step (${code}); the retry reads its result`, err);
  }
  return databaseFailure(err) ?? err;
}

function isLegacyInput(input: unknown): input is { jobId: string; execution: string; payload: unknown } {
  if (typeof input !== 'object' || input === null || !('payload' in input)) return false;
  const { jobId, execution } = input as { jobId?: unknown; execution?: unknown };
  return typeof jobId === 'string' && typeof execution === 'string';
}
