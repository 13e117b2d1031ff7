import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ledgerSteps, runOnce } from '../../src/activity-kit/ledger';
import type { Db, Trx } from '../../src/jobs/database/schema';
import { createAccount } from '../../src/jobs/database/seed';
import { describeEachDatabase } from '../helpers/db';
import { uniqueId } from '../helpers/env';

/** One business write: moves 1 unit of balance into the account and records an entry leg. */
async function credit(db: Pick<Db, 'updateTable' | 'insertInto'>, account: string, leg: string): Promise<void> {
  await db.updateTable('accounts').set({ balance: sql<number>`balance + 1` }).where('id', '=', account).execute();
  await db.insertInto('entries').values({ payment_id: account, leg, account_id: account, amount: 1, currency: 'EUR', created_at: new Date().toISOString() }).execute();
}

async function effects(db: Db, account: string): Promise<{ balance: number; entries: number }> {
  const { balance } = await db.selectFrom('accounts').select('balance').where('id', '=', account).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('entries').select('leg').where('payment_id', '=', account).execute();
  return { balance, entries: rows.length };
}

describeEachDatabase('runOnce', (getDb) => {
  let account: string;
  let key: { jobId: string; execution: string; step: string };

  beforeEach(async () => {
    account = uniqueId('acct');
    key = { jobId: uniqueId('job'), execution: uniqueId('run'), step: 'reserve' };
    await createAccount(getDb().db, { id: account, currency: 'EUR', balance: 0 });
  });

  it('commits the work and the ledger row once', async () => {
    const { db } = getDb();
    const out = await runOnce(db, key, async (trx) => (await credit(trx, account, 'a'), { n: 1 }));
    assert.deepEqual(out, { result: { n: 1 }, replayed: false });
    assert.deepEqual(await effects(db, account), { balance: 1, entries: 1 });
    assert.deepEqual(await ledgerSteps(db, key.jobId), [{ execution: key.execution, step: 'reserve' }]);
  });

  it('returns the recorded result, replayed, without running the work again', async () => {
    const { db } = getDb();
    await runOnce(db, key, async (trx) => (await credit(trx, account, 'a'), { at: 'first' }));
    let ran = false;
    const again = await runOnce(db, key, async () => ((ran = true), { at: 'second' }));
    assert.deepEqual(again, { result: { at: 'first' }, replayed: true });
    assert.equal(ran, false);
    assert.deepEqual(await effects(db, account), { balance: 1, entries: 1 });
  });

  it('runs a step again under a new execution (a redrive)', async () => {
    const { db } = getDb();
    await runOnce(db, key, async (trx) => credit(trx, account, 'a'));
    const redrive = await runOnce(db, { ...key, execution: uniqueId('run') }, async (trx) => (await credit(trx, account, 'b'), 'again'));
    assert.equal(redrive.replayed, false);
    assert.deepEqual(await effects(db, account), { balance: 2, entries: 2 });
  });

  it('rolls back the business writes and the ledger row when the work throws', async () => {
    const { db } = getDb();
    await assert.rejects(
      runOnce(db, key, async (trx) => {
        await credit(trx, account, 'a');
        throw new Error('crash mid-step');
      }),
      /crash mid-step/,
    );
    assert.deepEqual(await effects(db, account), { balance: 0, entries: 0 });
    assert.deepEqual(await ledgerSteps(db, key.jobId), []);
    const retried = await runOnce(db, key, async (trx) => (await credit(trx, account, 'a'), 'ok'));
    assert.deepEqual(retried, { result: 'ok', replayed: false });
    assert.deepEqual(await effects(db, account), { balance: 1, entries: 1 });
  });

  it('rolls back a step whose attempt is cancelled mid-work, throwing the cancellation, and the retry commits it once', async () => {
    const { db } = getDb();
    const controller = new AbortController();
    const cancelled = new Error('attempt cancelled');
    await assert.rejects(
      runOnce(
        db,
        key,
        async (trx) => {
          await credit(trx, account, 'a');
          controller.abort(cancelled);
          return 'written';
        },
        controller.signal,
      ),
      (err) => err === cancelled,
    );
    assert.deepEqual(await effects(db, account), { balance: 0, entries: 0 });
    assert.deepEqual(await ledgerSteps(db, key.jobId), []);
    let ran = false;
    await assert.rejects(runOnce(db, key, async () => ((ran = true), 'late'), controller.signal), (err) => err === cancelled);
    assert.equal(ran, false, 'an attempt already cancelled does no work');
    assert.deepEqual(await runOnce(db, key, async (trx) => (await credit(trx, account, 'a'), 'ok'), new AbortController().signal), { result: 'ok', replayed: false });
    assert.deepEqual(await effects(db, account), { balance: 1, entries: 1 });
  });

  it('leaves exactly one effect when two calls with the same key race', async () => {
    const { db } = getDb();
    const work = (leg: string) => async (trx: Trx) => (await credit(trx, account, leg), leg);
    const outcomes = await Promise.allSettled([runOnce(db, key, work('a')), runOnce(db, key, work('b'))]);
    const won = outcomes.filter((o) => o.status === 'fulfilled' && !o.value.replayed);
    assert.equal(won.length, 1, `exactly one call commits: ${JSON.stringify(outcomes.map((o) => o.status))}`);
    // The loser either saw the winner's row (replayed) or lost on the primary key and rolled back;
    // its retry, like any retried attempt, then reads the winner's result.
    const winner = (won[0] as PromiseFulfilledResult<{ result: string }>).value.result;
    assert.deepEqual(await runOnce(db, key, work('c')), { result: winner, replayed: true });
    assert.deepEqual(await effects(db, account), { balance: 1, entries: 1 });
    assert.equal((await ledgerSteps(db, key.jobId)).length, 1);
  });
});
