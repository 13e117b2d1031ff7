// The jobs database as jobctl finds it, for what reads the ledger (the console's redrive preview,
// `jobctl dlq redrive --dry-run`'s step plan): DATABASE_URL, or npm start's SQLite file when it is
// here. Loaded on demand, so that no other command pays for the database drivers.
import { existsSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { loadConfig } from '../shared/config';

/** The jobs database, or nothing when none is configured and npm start's file is not here. The caller destroys it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any catalog's database; only the ledger is read
export async function openJobsDatabase(): Promise<Kysely<any> | undefined> {
  const config = loadConfig();
  if (!process.env.DATABASE_URL && !existsSync(config.databaseUrl)) return undefined;
  const { openDatabase } = await import('../db/database.js');
  return openDatabase(config.databaseUrl);
}
