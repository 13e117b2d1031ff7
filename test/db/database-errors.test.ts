import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { ApplicationFailure } from '@temporalio/common';
import pg from 'pg';
import { classifyDatabaseError, databaseFailure } from '../../src/db/database-errors';
import { toScheduledFailure } from '../../src/activity-kit/retry-schedule';
import { ErrorType } from '../../src/shared/errors';
import { retrySchedule } from '../../src/shared/retry';
import { freePort } from '../helpers/processes';
import { testPostgresUrl } from '../helpers/db';

/** What a real driver threw for `run`; fails the test if it threw nothing. */
async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected the database to refuse');
}

describe('database error classification [sqlite]', () => {
  let file: string;
  before(async () => {
    file = path.join(await mkdtemp(path.join(os.tmpdir(), 'db-errors-')), 'jobs.db');
    const db = new SqliteDatabase(file);
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY)');
    db.close();
  });

  it('types a locked file (SQLITE_BUSY) as jobs:database-unavailable, retried on the schedule', async () => {
    const holder = new SqliteDatabase(file);
    const waiter = new SqliteDatabase(file);
    waiter.pragma('busy_timeout = 50');
    try {
      holder.exec('BEGIN EXCLUSIVE');
      const err = await errorOf(() => waiter.prepare('INSERT INTO t VALUES (?)').run('x'));
      assert.deepEqual(classifyDatabaseError(err), { kind: 'unavailable', code: 'SQLITE_BUSY' });
      const failure = toScheduledFailure(retrySchedule('1s', '5s'), 1, err) as ApplicationFailure;
      assert.equal(failure.type, ErrorType.DatabaseUnavailable);
      assert.equal(failure.nonRetryable, false);
      assert.equal(failure.nextRetryDelay, '1s');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      waiter.close();
    }
  });

  it('types a constraint violation and a missing table as jobs:database-rejected, never retried', async () => {
    const db = new SqliteDatabase(file);
    try {
      db.prepare('INSERT INTO t VALUES (?)').run('dup');
      const duplicate = await errorOf(() => db.prepare('INSERT INTO t VALUES (?)').run('dup'));
      const noTable = await errorOf(() => db.prepare('SELECT * FROM missing').all());
      for (const err of [duplicate, noTable]) {
        assert.equal(classifyDatabaseError(err)?.kind, 'rejected', String(err));
        const failure = toScheduledFailure(retrySchedule('1s'), 1, err) as ApplicationFailure;
        assert.equal(failure.type, ErrorType.DatabaseRejected);
        assert.equal(failure.nonRetryable, true);
      }
    } finally {
      db.close();
    }
  });

  it('leaves errors that are not the database’s alone', () => {
    assert.equal(classifyDatabaseError(new Error('boom')), undefined);
    assert.equal(databaseFailure(Object.assign(new Error('not found'), { code: 'ENOENT' })), undefined);
  });
});

describe('database error classification [postgres]', function () {
  before(async function () {
    const probe = new pg.Client({ connectionString: testPostgresUrl, connectionTimeoutMillis: 2000 });
    try {
      await probe.connect();
      await probe.end();
    } catch (err) {
      // Like describeEachDatabase's Postgres leg: skipped without a server, required under CI=true.
      if (process.env.CI === 'true') throw err;
      this.skip();
    }
  });

  async function withClient<T>(run: (client: pg.Client) => Promise<T>, url = testPostgresUrl): Promise<T> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    await client.connect();
    client.on('error', () => {});
    try {
      return await run(client);
    } finally {
      await client.end().catch(() => {});
    }
  }
  const raise = (client: pg.Client, sqlstate: string) => client.query(`DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '${sqlstate}'; END $$`);

  it('types a server that is down (ECONNREFUSED) as jobs:database-unavailable', async () => {
    const url = new URL(testPostgresUrl);
    url.port = String(await freePort());
    const err = await errorOf(() => withClient(async () => undefined, url.toString()));
    assert.equal(classifyDatabaseError(err)?.kind, 'unavailable', String(err));
    assert.equal(databaseFailure(err)?.type, ErrorType.DatabaseUnavailable);
  });

  it('types a terminated backend (57P01) and a lost connection as jobs:database-unavailable', async () => {
    await withClient(async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await withClient((admin) => admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]));
      const err = await errorOf(() => client.query('SELECT 1'));
      assert.equal(classifyDatabaseError(err)?.kind, 'unavailable', String(err));
    });
  });

  it('types serialization failures, deadlocks, "cannot connect now" and too many connections as jobs:database-unavailable', async () => {
    await withClient(async (client) => {
      for (const sqlstate of ['40001', '40P01', '57P03', '53300', '08006']) {
        const err = await errorOf(() => raise(client, sqlstate));
        assert.deepEqual(classifyDatabaseError(err), { kind: 'unavailable', code: sqlstate });
      }
    });
  });

  it('types a wrong password (28P01) and a missing database (3D000) as jobs:database-config, retried, naming DATABASE_URL', async () => {
    const wrong = new URL(testPostgresUrl);
    wrong.password = 'rotated-away';
    const missing = new URL(testPostgresUrl);
    missing.pathname = '/no_such_database_here';
    for (const [url, code] of [[wrong, '28P01'], [missing, '3D000']] as const) {
      const err = await errorOf(() => withClient(async () => undefined, url.toString()));
      assert.deepEqual(classifyDatabaseError(err), { kind: 'config', code });
      const failure = toScheduledFailure(retrySchedule('1s', '5s'), 2, err) as ApplicationFailure;
      assert.equal(failure.type, ErrorType.DatabaseConfig);
      assert.equal(failure.nonRetryable, false);
      assert.equal(failure.nextRetryDelay, '5s');
      assert.match(failure.message, /DATABASE_URL/);
      assert.doesNotMatch(failure.message, /rotated-away/);
    }
  });

  it('types constraint violations (23xxx) and schema errors (42xxx) as jobs:database-rejected, never retried', async () => {
    await withClient(async (client) => {
      await client.query('CREATE TEMP TABLE t (id text PRIMARY KEY, n int NOT NULL)');
      await client.query(`INSERT INTO t VALUES ('a', 1)`);
      const errors = [
        await errorOf(() => client.query(`INSERT INTO t VALUES ('a', 2)`)), // 23505
        await errorOf(() => client.query(`INSERT INTO t VALUES ('b', NULL)`)), // 23502
        await errorOf(() => client.query('SELECT * FROM no_such_table')), // 42P01
        await errorOf(() => client.query('SELECT no_such_column FROM t')), // 42703
      ];
      for (const err of errors) {
        assert.equal(classifyDatabaseError(err)?.kind, 'rejected', String(err));
        const failure = toScheduledFailure(retrySchedule('1s'), 1, err) as ApplicationFailure;
        assert.equal(failure.type, ErrorType.DatabaseRejected);
        assert.equal(failure.nonRetryable, true);
      }
    });
  });
});
