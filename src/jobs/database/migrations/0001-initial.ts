import { sql, type Kysely } from 'kysely';

// A migration is a stored contract like a job type: never edit one that has shipped; add the next.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ledger')
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('execution', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_pk', ['job_id', 'execution', 'step'])
    .execute();

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('balance', 'bigint', (c) => c.notNull().check(sql`balance >= 0`))
    .addColumn('held', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`held >= 0`))
    // The database itself refuses a hold larger than the money in the account.
    .addCheckConstraint('accounts_held_within_balance', sql`held <= balance`)
    .execute();

  await db.schema
    .createTable('holds')
    .addColumn('payment_id', 'text', (c) => c.primaryKey())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('entries')
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('leg', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('entries_pk', ['payment_id', 'leg'])
    .execute();
  await db.schema.createIndex('entries_created_at').on('entries').column('created_at').execute();

  await db.schema
    .createTable('sync_records')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sync_records_pk', ['source', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sync_records', 'entries', 'holds', 'accounts', 'ledger']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
