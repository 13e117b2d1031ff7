import type { Db } from './schema';

/** An account to create. Amounts are integers in minor units (1250 is 12.50). */
export interface NewAccount {
  id: string;
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** Opening balance in minor units. @defaultValue 0 */
  balance?: number;
}

/** The accounts `npm start` creates so that `jobctl enqueue process-payment …` works out of the box. */
export const demoAccounts: readonly Required<NewAccount>[] = [
  { id: 'alice', currency: 'EUR', balance: 100_000 },
  { id: 'bob', currency: 'EUR', balance: 100_000 },
  { id: 'carol', currency: 'USD', balance: 100_000 },
];

/** Creates an account with nothing held; throws if the ID exists. */
export async function createAccount(db: Db, account: NewAccount): Promise<void> {
  await db.insertInto('accounts').values({ id: account.id, currency: account.currency, balance: account.balance ?? 0, held: 0 }).execute();
}

/**
 * Creates the {@link demoAccounts} that do not exist yet; existing ones (and their balances) are
 * left alone, so it is safe on every start. Returns the IDs it created.
 */
export async function seedDemoAccounts(db: Db): Promise<string[]> {
  const created: string[] = [];
  for (const account of demoAccounts) {
    const result = await db
      .insertInto('accounts')
      .values({ ...account, held: 0 })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) created.push(account.id);
  }
  return created;
}
