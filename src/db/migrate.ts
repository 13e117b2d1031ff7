import { Migrator, type Migration, type MigrationResultSet } from 'kysely';
import * as initial from './migrations/0001-initial';
import type { Db } from './schema';

/** Every migration, in order. Imported statically so the built package needs no file-system scan. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
};

/**
 * Brings the schema up to date; safe to run from several processes at once (Kysely's migrator
 * takes a lock). Throws the failing migration's error.
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
