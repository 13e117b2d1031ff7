// `npm run migrate`: brings the jobs database (DATABASE_URL, or the SQLite file under DATA_DIR) up to date.
import { loadConfig } from '../../worker';
import { describeRedacted } from '../../worker';
import { openDatabase, redactDatabaseUrl } from '../../worker';
import { migrateToLatest } from '../../worker';
import { builtInMigrations } from './migrations';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = openDatabase(config.databaseUrl);
  try {
    const applied = await migrateToLatest(db, builtInMigrations);
    console.log(`${redactDatabaseUrl(config.databaseUrl)}: ${applied.length ? `applied ${applied.join(', ')}` : 'already up to date'}`);
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(`migrate: ${describeRedacted(err)}`);
  process.exit(1);
});
