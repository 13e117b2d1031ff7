import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { loadPart } from '../shared/optional-packages';

/** Which kind of database a `DATABASE_URL` names. */
export type DatabaseKind = 'sqlite' | 'postgres';

/** `postgres` for a `postgres://` or `postgresql://` URL, else `sqlite` (a file path). */
export function databaseKind(url: string): DatabaseKind {
  return /^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite';
}

/** The URL with its password replaced by `***`, safe to log. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

/** PostgreSQL's `bigint` (OID 20) arrives as a string by default; our amounts fit in a JS number. */
const pgTypes = (driver: typeof pg) => ({
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 ? (value: string) => Number(value) : driver.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
});

// The drivers are optional peer dependencies: each is loaded when a database of its kind is opened.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a PostgreSQL URL
const postgresDriver = () => loadPart('postgres', () => require('pg') as typeof pg);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a SQLite file
const sqliteDriver = () => loadPart('sqlite', () => require('better-sqlite3') as typeof SqliteDatabase);

/**
 * Opens the jobs database. SQLite runs in WAL mode with a busy timeout, so a worker and
 * `npm run migrate` (or a second worker on the same machine) can share the file.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the caller's tables type it
export function openDatabase<DB = any>(url: string): Kysely<DB> {
  if (databaseKind(url) === 'postgres') {
    const driver = postgresDriver();
    const pool = new driver.Pool({ connectionString: url, max: 10, types: pgTypes(driver), connectionTimeoutMillis: 10_000 });
    // An idle client that loses its server (a restart) must not crash the worker; the next query reconnects.
    pool.on('error', () => {});
    // Nor may a checked-out one (e.g. mid-transaction): its query fails, the attempt is retried, and
    // the pool drops the broken client on release.
    pool.on('connect', (client) => client.on('error', () => {}));
    return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  }
  const file = url.replace(/^sqlite:(\/\/)?/, '');
  if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const Sqlite = sqliteDriver();
  const sqlite = new Sqlite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
}

/**
 * Whether a Kysely instance (or transaction) talks to PostgreSQL: by its adapter, also when it was
 * made by another copy of Kysely than this package's (a project's own install).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tables
export function isPostgres(db: Kysely<any>): boolean {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof PostgresAdapter || adapter.constructor.name === 'PostgresAdapter';
}
