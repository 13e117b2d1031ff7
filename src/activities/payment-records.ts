// The process-payment tables (accounts, holds, double-entry postings), read and written inside a
// ledger step's transaction: the bookkeeping that src/activities/payments.ts's steps are made of.
import { nonRetryable } from '../activity-kit';
import { ErrorType } from '../workflow-kit';
import type { AccountsTable, HoldsTable, Trx } from '../jobs/database/schema';
import { ProcessPaymentErrorType, type ProcessPaymentPayload } from '../jobs/process-payment';

/** The account, checked to exist and to be in the payment's currency (else non-retryable process-payment:unknown-account, process-payment:currency-mismatch). */
export async function accountFor(trx: Trx, id: string, currency: string): Promise<AccountsTable> {
  const account = await trx.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  if (!account) throw nonRetryable(ProcessPaymentErrorType.UnknownAccount, `account "${id}" does not exist`);
  if (account.currency !== currency) {
    throw nonRetryable(ProcessPaymentErrorType.CurrencyMismatch, `account "${id}" is in ${account.currency}, the payment in ${currency}`);
  }
  return account;
}

/** The payment's hold, whoever placed it. */
export function holdOf(trx: Trx, paymentId: string): Promise<HoldsTable | undefined> {
  return trx.selectFrom('holds').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
}

/** The job's own hold in the status a forward step needs; anything else means the steps ran out of order. */
export async function ownHold(trx: Trx, jobId: string, p: ProcessPaymentPayload, status: HoldsTable['status']): Promise<HoldsTable> {
  const hold = await holdOf(trx, p.paymentId);
  if (hold?.job_id !== jobId || hold.status !== status || hold.amount !== p.amount) {
    throw nonRetryable(ErrorType.Unexpected, `payment "${p.paymentId}" has no ${status} hold of job "${jobId}" (found ${hold ? `${hold.status}, job "${hold.job_id}"` : 'none'})`);
  }
  return hold;
}

/** Moves the payment's hold to `status`. */
export async function setHoldStatus(trx: Trx, paymentId: string, status: HoldsTable['status'], at: string): Promise<void> {
  await trx.updateTable('holds').set({ status, updated_at: at }).where('payment_id', '=', paymentId).execute();
}

/**
 * Writes a debit and a credit leg that sum to zero. A redriven payment captured again after an
 * earlier reversal gets legs suffixed `#2`, `#3`…, since legs are unique per payment.
 */
export async function post(trx: Trx, p: ProcessPaymentPayload, kind: 'capture' | 'reversal', debit: string, credit: string, at: string): Promise<void> {
  const earlier = await trx
    .selectFrom('entries')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('payment_id', '=', p.paymentId)
    .where('leg', 'like', `${kind}:debit%`)
    .executeTakeFirstOrThrow();
  const suffix = Number(earlier.n) === 0 ? '' : `#${Number(earlier.n) + 1}`;
  const leg = { payment_id: p.paymentId, currency: p.currency, created_at: at };
  await trx
    .insertInto('entries')
    .values([
      { ...leg, leg: `${kind}:debit${suffix}`, account_id: debit, amount: -p.amount },
      { ...leg, leg: `${kind}:credit${suffix}`, account_id: credit, amount: p.amount },
    ])
    .execute();
}
