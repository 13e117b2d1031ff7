import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { catalog } from '../../src/jobs/catalog';
import { enqueueInTransaction } from '../../src/outbox/enqueue-in-transaction';
import { OutboxRelay, type OutboxRelayOptions } from '../../src/outbox/relay';
import { pruneOutbox, readOutboxBacklog } from '../../src/outbox/outbox-backlog';
import type { OutboxDatabase } from '../../src/outbox/outbox-row';
import type { PreparedJob } from '../../src/catalog/prepare-job';
import { IdConflictError, InvalidOptionError, InvalidPayloadError } from '../../src/shared/errors';
import { describeEachDatabase } from '../helpers/db';
import { uniqueId } from '../helpers/env';

const quiet = { info: () => {}, warn: () => {} };
const payment = (paymentId: string, amount = 100) => ({ paymentId, fromAccount: 'acct-a', toAccount: 'acct-b', amount, currency: 'EUR' });

/** A relay over `db` whose starts are recorded (and may be made to fail): the claim and marking, without Temporal. */
function recordingRelay(db: OutboxRelayOptions['db'], start: (job: PreparedJob) => Promise<{ existed: boolean }>, holder = 'test', batchSize = 100) {
  return new OutboxRelay({ db, catalog, start, logger: quiet, holder, batchSize });
}

// The outbox on a real SQLite file and a real PostgreSQL database: what a transaction writes, and
// how a relay takes, starts and marks rows. Temporal is left out here (the start is recorded);
// test/integration/outbox.test.ts runs the whole path on a dev server.
describeEachDatabase('job outbox: enqueue in a transaction, relay', (get) => {
  const outbox = () => get().db as unknown as Kysely<OutboxDatabase>;
  beforeEach(async () => {
    await outbox().deleteFrom('job_outbox').execute();
    await outbox().deleteFrom('job_outbox_relay').execute();
  });

  it('writes the job with the transaction: committed, one row with the ID enqueue would give; rolled back, none', async () => {
    const { db } = get();
    const paymentId = uniqueId('pay');
    const written = await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'process-payment', payment(paymentId)));
    assert.deepEqual(written, { id: `payment:${paymentId}`, existed: false }, 'the type’s idempotency key decides the ID, as for enqueue');
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await enqueueInTransaction(trx, catalog, 'noop', {}, { id: 'rolled-back' });
        throw new Error('the order could not be saved');
      }),
      /could not be saved/,
    );
    const rows = await outbox().selectFrom('job_outbox').select(['job_id', 'job_type', 'relayed_at']).execute();
    assert.deepEqual(rows, [{ job_id: `payment:${paymentId}`, job_type: 'process-payment', relayed_at: null }]);
  });

  it('refuses a bad payload or option with the error enqueue gives, naming the field, and writes nothing', async () => {
    const { db } = get();
    await db.transaction().execute(async (trx) => {
      await assert.rejects(enqueueInTransaction(trx, catalog, 'process-payment', { ...payment('p1'), amount: -5 }), (err: unknown) => err instanceof InvalidPayloadError && /amount/.test(err.message));
      await assert.rejects(enqueueInTransaction(trx, catalog, 'noop', {}, { id: 'x'.repeat(251) }), /id/);
      await assert.rejects(enqueueInTransaction(trx, catalog, 'no-such-type', {}), /no-such-type/);
    });
    assert.equal((await readOutboxBacklog(db)).waiting, 0);
  });

  it('refuses a db that is not a transaction, and debounce or dedupe, naming them; a database without the outbox is named too', async () => {
    const { db } = get();
    await assert.rejects(enqueueInTransaction(db, catalog, 'noop', {}), (err: unknown) => err instanceof InvalidOptionError && /trx: must be a transaction/.test(err.message));
    await db.transaction().execute(async (trx) => {
      await assert.rejects(enqueueInTransaction(trx, catalog, 'noop', {}, { debounce: { key: 'k', delay: '3s' } }), /debounce: is not available in a transaction/);
      await assert.rejects(enqueueInTransaction(trx, catalog, 'noop', {}, { dedupe: { key: 'k', ttl: '1h' } }), /dedupe: is not available in a transaction/);
    });
    assert.equal((await readOutboxBacklog(db)).waiting, 0);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await sql`drop table job_outbox`.execute(trx);
        await enqueueInTransaction(trx, catalog, 'noop', {});
      }),
      /jobs:database-config: the jobs database has no job_outbox table/,
    );
  });

  it('the same job twice is one row (existed); the same ID with another payload or type is IdConflictError', async () => {
    const { db } = get();
    const id = uniqueId('dup');
    await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', { failAttempts: 1 }, { id }));
    assert.deepEqual(await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', { failAttempts: 1 }, { id })), { id, existed: true });
    await assert.rejects(db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', { failAttempts: 2 }, { id })), IdConflictError);
    await assert.rejects(db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'process-payment', payment('p2'), { id })), /used by a noop job/);
    assert.equal((await readOutboxBacklog(db)).waiting, 1);
  });

  it('a relay starts the rows oldest first, each once, and marks them; a conflict is settled, a failed start retried later', async () => {
    const { db } = get();
    for (let i = 0; i < 5; i++) await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', {}, { id: `row-${i}` }));
    const started: string[] = [];
    const relay = recordingRelay(db, async (job) => {
      if (job.id === 'row-3') throw new IdConflictError(job.id);
      if (job.id === 'row-4') throw new Error('14 UNAVAILABLE: connection refused');
      started.push(job.id);
      return { existed: job.id === 'row-2' };
    });
    assert.equal(await relay.relayOnce(), 5);
    assert.deepEqual(started, ['row-0', 'row-1', 'row-2']);
    const rows = await outbox().selectFrom('job_outbox').select(['job_id', 'outcome', 'relay_attempts', 'next_attempt_at', 'last_error']).orderBy('seq').execute();
    assert.deepEqual(rows.map((r) => [r.job_id, r.outcome, r.relay_attempts]), [['row-0', 'started', 0], ['row-1', 'started', 0], ['row-2', 'existed', 0], ['row-3', 'conflict', 0], ['row-4', null, 1]]);
    assert.match(rows[3]!.last_error!, /already used/);
    assert.match(rows[4]!.last_error!, /UNAVAILABLE/);
    // Held back until its next attempt: not taken again at once, taken once that time has come.
    assert.equal(await relay.relayOnce(), 0);
    assert.equal(await relay.relayOnce(new Date(Date.parse(rows[4]!.next_attempt_at!) + 1)), 1);
    const backlog = await readOutboxBacklog(db);
    assert.deepEqual({ waiting: backlog.waiting, failing: backlog.failing, conflicts: backlog.conflicts }, { waiting: 1, failing: 1, conflicts: 1 });
  });

  it('two relays of different catalogs each start their own types at once, on SQLite too (a lease per type)', async () => {
    const { db } = get();
    await db.transaction().execute(async (trx) => {
      await enqueueInTransaction(trx, catalog, 'noop', {}, { id: 'ours' });
      await enqueueInTransaction(trx, catalog, 'process-payment', payment('theirs'));
    });
    const started: string[] = [];
    const only = (type: string) => new OutboxRelay({ db, catalog: { types: [type], definition: catalog.definition }, start: async (job) => (started.push(job.id), { existed: false }), logger: quiet, holder: `relay-of-${type}` });
    const [a, b] = [only('noop'), only('process-payment')];
    assert.equal(await a.relayOnce(), 1);
    // a holds noop's lease, not the payments': b relays its type now, not once a's lease lapses.
    assert.equal(await b.relayOnce(), 1);
    assert.deepEqual(started, ['ours', 'payment:theirs']);
  });

  it('leaves the rows of types its catalog lacks to a relay that knows them', async () => {
    const { db } = get();
    await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', {}, { id: 'theirs' }));
    const started: string[] = [];
    const relay = new OutboxRelay({ db, catalog: { types: ['send-email'], definition: catalog.definition }, start: async (job) => (started.push(job.id), { existed: false }), logger: quiet, holder: 'other-service' });
    assert.equal(await relay.relayOnce(), 0);
    assert.deepEqual(started, []);
  });

  it('a delayed job waits only what is left of its delay when the relay starts it late', async () => {
    const { db } = get();
    await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', {}, { id: 'later', delay: '10m' }));
    const delays: (number | undefined)[] = [];
    const relay = recordingRelay(db, async (job) => (delays.push(job.delayMs), { existed: false }));
    await relay.relayOnce(new Date(Date.now() + 4 * 60_000));
    assert.ok(delays[0]! > 5.9 * 60_000 && delays[0]! <= 6 * 60_000, `6 minutes left: ${delays[0]}`);
  });

  it('prunes rows relayed before the cut-off, never one still waiting', async () => {
    const { db } = get();
    for (const id of ['old', 'waiting']) await db.transaction().execute((trx) => enqueueInTransaction(trx, catalog, 'noop', {}, { id }));
    await outbox().updateTable('job_outbox').set({ relayed_at: '2026-01-01T00:00:00.000Z', outcome: 'started' }).where('job_id', '=', 'old').execute();
    assert.equal(await pruneOutbox(db, new Date('2026-06-01T00:00:00.000Z')), 1);
    assert.deepEqual((await outbox().selectFrom('job_outbox').select('job_id').execute()).map((r) => r.job_id), ['waiting']);
  });

  it('two relays at once start each row once: row locks on PostgreSQL, the lease on SQLite', async () => {
    const { db, kind } = get();
    const ids = Array.from({ length: 300 }, (_, i) => `both-${i}`);
    await db.transaction().execute(async (trx) => {
      for (const id of ids) await enqueueInTransaction(trx, catalog, 'noop', {}, { id });
    });
    const starts = new Map<string, number>();
    const start = async (job: PreparedJob) => {
      starts.set(job.id, (starts.get(job.id) ?? 0) + 1);
      // A start takes a moment, as a call to Temporal does: the batches overlap in time.
      await new Promise((r) => setTimeout(r, 2));
      return { existed: false };
    };
    const [a, b] = [recordingRelay(db, start, 'relay-a', 50), recordingRelay(db, start, 'relay-b', 50)];
    let tookA = 0;
    let tookB = 0;
    for (let round = 0; round < 12 && starts.size < ids.length; round++) {
      const [x, y] = await Promise.all([a.relayOnce(), b.relayOnce()]);
      tookA += x;
      tookB += y;
    }
    assert.equal(starts.size, ids.length, 'every row started');
    assert.deepEqual([...starts.values()].filter((n) => n !== 1), [], 'none twice');
    if (kind === 'postgres') assert.ok(tookA > 0 && tookB > 0, `both relayed (a ${tookA}, b ${tookB})`);
    else assert.ok(tookA === 0 || tookB === 0, `one relay at a time on SQLite (a ${tookA}, b ${tookB})`);
    assert.equal((await readOutboxBacklog(db)).waiting, 0);
  });
});
