import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/database';
import { testPostgresUrl } from '../helpers/db';

describe('openDatabase (PostgreSQL)', () => {
  it('survives the server dropping a connection that is checked out mid-transaction, and reconnects', async function () {
    const probe = new pg.Client({ connectionString: testPostgresUrl, connectionTimeoutMillis: 2000 });
    try {
      await probe.connect();
      await probe.end();
    } catch (err) {
      // Like describeEachDatabase's Postgres leg: skipped without a server, required under CI=true.
      if (process.env.CI === 'true') throw err;
      this.skip();
    }
    const db = openDatabase(testPostgresUrl);
    const uncaught: unknown[] = [];
    const record = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', record);
    try {
      const admin = new pg.Client({ connectionString: testPostgresUrl });
      await admin.connect();
      // As a restart does: the server ends the backend while the transaction holds its client.
      let ended = false;
      const failed = await db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          // The backend sends its goodbye before it exits: once the server lists it no more (and the
          // I/O of that turn is read), the checked-out client has been told while idle.
          for (const deadline = Date.now() + 10_000; !ended && Date.now() < deadline; ) {
            ended = (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid])).rowCount === 0;
            await new Promise((r) => (ended ? setImmediate(r) : setTimeout(r, 20)));
          }
          await sql`SELECT 1`.execute(trx);
        })
        .then(
          () => false,
          () => true,
        );
      await admin.end();
      assert.ok(ended, 'the server ended the backend');
      assert.ok(failed, 'the transaction fails');
      // An unhandled error event from the dead connection would follow its failure within a few turns
      // of the event loop: 200 ms of none is the check.
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(uncaught, [], 'no unhandled error event');
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
      assert.equal(rows[0]!.one, 1, 'the next query gets a fresh connection');
    } finally {
      process.removeListener('uncaughtException', record);
      await db.destroy();
    }
  });
});
