import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { builtInMigrations } from '../../src/jobs/database/migrations';
import type { Db } from '../../src/jobs/database/schema';

/**
 * The PostgreSQL server the Postgres leg of the database tests uses. `.ci/run` starts Debian's
 * postgresql and sets it; on a laptop without one, the Postgres leg is skipped and the summary says so.
 */
export const testPostgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** Why the Postgres leg was skipped, if it was; the summary reporter prints it. */
export const postgresSkip: { reason?: string } = {};

let reachable: Promise<boolean> | undefined;
/** Whether the PostgreSQL of {@link testPostgresUrl} answers; when not, {@link postgresSkip} says why. */
export async function postgresReachable(): Promise<boolean> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: testPostgresUrl, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.end();
      return true;
    } catch (err) {
      postgresSkip.reason = `no PostgreSQL at ${testPostgresUrl.replace(/:[^:@/]*@/, ':***@')} (${err instanceof Error ? err.message : String(err)}); set TEST_POSTGRES_URL`;
      return false;
    }
  })();
  return reachable;
}

/** A fresh, migrated database for one test file, and how to drop it. */
export interface TestDb {
  kind: 'sqlite' | 'postgres';
  url: string;
  db: Db;
  close: () => Promise<void>;
}

/** A new SQLite file in a temporary folder, migrated. */
export async function sqliteTestDb(): Promise<TestDb> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'jobs-db-'));
  const url = path.join(dir, 'jobs.db');
  const db = openDatabase(url);
  await migrateToLatest(db, builtInMigrations);
  return { kind: 'sqlite', url, db, close: () => db.destroy() };
}

/** A new database on the test PostgreSQL server, migrated; dropped by `close`. */
export async function postgresTestDb(): Promise<TestDb> {
  const name = `jobs_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: testPostgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testPostgresUrl);
  url.pathname = `/${name}`;
  const db = openDatabase(url.toString());
  await migrateToLatest(db, builtInMigrations);
  return {
    kind: 'postgres',
    url: url.toString(),
    db,
    close: async () => {
      await db.destroy();
      const dropper = new pg.Client({ connectionString: testPostgresUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/**
 * Declares the same tests against SQLite and against PostgreSQL. The Postgres leg is skipped (and
 * the run's summary says why) when no server answers, except under CI=true, where it must run.
 */
export function describeEachDatabase(title: string, body: (get: () => TestDb) => void): void {
  for (const kind of ['sqlite', 'postgres'] as const) {
    describe(`${title} [${kind}]`, function () {
      let testDb: TestDb | undefined;
      before(async function () {
        if (kind === 'postgres' && !(await postgresReachable())) {
          if (process.env.CI === 'true') throw new Error(`CI=true but the Postgres leg cannot run: ${postgresSkip.reason}`);
          this.skip();
        }
        testDb = kind === 'sqlite' ? await sqliteTestDb() : await postgresTestDb();
      });
      after(async () => testDb?.close());
      body(() => {
        if (!testDb) throw new Error('database not ready');
        return testDb;
      });
    });
  }
}
