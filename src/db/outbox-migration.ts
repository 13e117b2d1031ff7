import { sql, type Kysely } from 'kysely';
import { isPostgres } from './database';

// The outbox's tables (src/outbox/): jobs enqueued inside a transaction of the user's database,
// waiting for the worker's relay to start them on Temporal. One of the library's own migrations,
// run under its own migration table (src/db/migrate.ts). A stored contract: never edit it; add the next.

/** The name the migration is stored under. */
export const outboxMigrationName = 'durable-jobs-0001-outbox';

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('job_outbox')
    .ifNotExists()
    // The commit order, roughly: the relay starts rows in this order.
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('job_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('payload_hash', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('enqueued_at', 'text', (c) => c.notNull())
    .addColumn('relay_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('relayed_at', 'text')
    .addColumn('outcome', 'text')
    .execute();
  // What the relay reads: the rows not yet relayed, in order; and what pruning deletes.
  await sql`create index if not exists job_outbox_pending on job_outbox (seq) where relayed_at is null`.execute(db);
  await sql`create index if not exists job_outbox_relayed on job_outbox (relayed_at) where relayed_at is not null`.execute(db);
  await sql`create index if not exists job_outbox_job_id on job_outbox (job_id)`.execute(db);
  // SQLite has no row locks to skip: one relay at a time holds this lease.
  await db.schema
    .createTable('job_outbox_relay')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('job_outbox_relay').ifExists().execute();
  await db.schema.dropTable('job_outbox').ifExists().execute();
}
