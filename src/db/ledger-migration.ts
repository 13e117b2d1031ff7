import type { Kysely } from 'kysely';

// The ledger's own migration, run for every catalog that declares a database. Named so that it
// sorts after the built-in catalog's `0001-initial`, which created the same table before the
// ledger had a migration of its own: on such a database this one finds the table and does nothing.
// A stored contract, like every migration: never edit it; add the next.

/** The name the migration is stored under. */
export const ledgerMigrationName = 'durable-jobs-0001-ledger';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ledger')
    .ifNotExists()
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('execution', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_pk', ['job_id', 'execution', 'step'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ledger').ifExists().execute();
}
