import assert from 'node:assert/strict';
import type { Db } from '../../src/jobs/database/schema';

/** Each account's balance and held amount, in the order of `ids`. */
export async function balances(db: Db, ids: string[]): Promise<{ balance: number; held: number }[]> {
  const rows = await db.selectFrom('accounts').select(['id', 'balance', 'held']).where('id', 'in', ids).execute();
  return ids.map((id) => {
    const { balance, held } = rows.find((r) => r.id === id)!;
    return { balance, held };
  });
}

/** The sum of the accounts' balances. */
export async function totalBalance(db: Db, ids: string[]): Promise<number> {
  return (await balances(db, ids)).reduce((sum, x) => sum + x.balance, 0);
}

/**
 * The payment invariants once every payment has settled: money is neither created nor destroyed
 * (the total is `totalBefore`), no balance is negative, no hold is left open, and every payment's
 * double-entry legs sum to zero.
 */
export async function assertPaymentInvariants(db: Db, ids: string[], totalBefore: number, paymentIds?: string[]): Promise<void> {
  assert.equal(await totalBalance(db, ids), totalBefore, 'money is neither created nor destroyed');
  for (const row of await balances(db, ids)) {
    assert.ok(row.balance >= 0 && row.held === 0 && row.held <= row.balance, JSON.stringify(row));
  }
  let legs = db.selectFrom('entries').select(['payment_id']).select((eb) => eb.fn.sum<number>('amount').as('sum')).groupBy('payment_id');
  if (paymentIds) legs = legs.where('payment_id', 'in', paymentIds.length > 0 ? paymentIds : ['']);
  for (const row of await legs.execute()) assert.equal(Number(row.sum), 0, `entries of ${row.payment_id} sum to zero`);
}
