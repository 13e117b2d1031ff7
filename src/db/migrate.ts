import { Migrator, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import * as ledger from './ledger-migration';
import * as outbox from './outbox-migration';

/**
 * The library's own tables after the ledger (the outbox), under a migration table of their own, so
 * that they never interleave with a catalog's migrations: Kysely refuses a pending migration that
 * sorts before one already run, and a catalog's names are its own.
 */
const libraryMigrations: Record<string, Migration> = { [outbox.outboxMigrationName]: outbox };

/** Where the library's own migrations are recorded. */
export const libraryMigrationTable = 'durable_jobs_migration';

/**
 * Brings the schema up to date: the ledger's migration plus the catalog's own, in name order, then
 * the library's own (the outbox). Safe to run from several processes at once (Kysely's migrator
 * takes a lock). Throws the failing migration's error, and names a catalog migration that would
 * shadow the ledger's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's tables
export async function migrateToLatest(db: Kysely<any>, migrations: Record<string, Migration> = {}): Promise<string[]> {
  if (Object.prototype.hasOwnProperty.call(migrations, ledger.ledgerMigrationName)) {
    throw new TypeError(`migration name ${ledger.ledgerMigrationName} is the ledger's own; name the catalog's migration otherwise`);
  }
  const all: Record<string, Migration> = { ...migrations, [ledger.ledgerMigrationName]: ledger };
  const ran = await run(new Migrator({ db, provider: { getMigrations: async () => all } }));
  const library = new Migrator({
    db,
    provider: { getMigrations: async () => libraryMigrations },
    migrationTableName: libraryMigrationTable,
    migrationLockTableName: `${libraryMigrationTable}_lock`,
  });
  return [...ran, ...(await run(library))];
}

async function run(migrator: Migrator): Promise<string[]> {
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
