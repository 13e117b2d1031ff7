import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { JobClient } from '../../src/client/job-client';
import type { OutboxDatabase } from '../../src/outbox/outbox-row';
import { postgresReachable, postgresSkip, postgresTestDb, type TestDb } from '../helpers/db';
import { uniqueId } from '../helpers/env';
import type { Started } from '../helpers/processes';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, until, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

/** Rows committed: `npm run soak:outbox` commits 10,000; the soak lane a small version. */
const rows = Number(process.env.OUTBOX_ROWS ?? 1000);
/** Rows per transaction, and transactions at once. */
const burst = 100;
const writers = 4;

// Many jobs committed to the outbox of a PostgreSQL jobs database in bursts, while two workers
// relay them at once (FOR UPDATE SKIP LOCKED) and one of them is SIGKILLed mid-batch: every row's
// job is started exactly once and runs to its end. On a real dev server with real worker processes.
describe(`the job outbox under load: ${rows} jobs committed in bursts, two relaying workers, one killed`, function () {
  this.timeout(Math.max(600_000, rows * 200));
  let temporal: TestTemporal;
  let testDb: TestDb;
  let jobs: JobClient;
  const workers: Started[] = [];

  before(async function () {
    if (!(await postgresReachable())) {
      if (process.env.CI === 'true') throw new Error(`CI=true but the Postgres leg cannot run: ${postgresSkip.reason}`);
      this.skip();
    }
    temporal = await startTestTemporal();
    testDb = await postgresTestDb();
  });
  after(async () => {
    for (const worker of workers.splice(0)) await killIfRunning(worker);
    await jobs?.close();
    await testDb?.close();
    await temporal?.stop();
  });

  it('starts each committed job exactly once, and every job completes', async () => {
    const env: WorkerEnv = { temporal, taskQueue: uniqueId('tq-outbox-load'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'worker-data-')), extra: { DATABASE_URL: testDb.url } };
    jobs = await jobClientFor(env);
    const [first, second] = [await startWorkerProcess(env), await startWorkerProcess(env)];
    workers.push(first, second);
    const db = testDb.db as unknown as Kysely<OutboxDatabase>;
    const relayedCount = async () => Number((await db.selectFrom('job_outbox').select((eb) => eb.fn.countAll().as('n')).where('relayed_at', 'is not', null).executeTakeFirstOrThrow()).n);

    // Bursts of `burst` rows per transaction, `writers` transactions at once, as a busy service commits.
    const ids = Array.from({ length: rows }, (_, i) => `outbox-load-${env.taskQueue}-${i}`);
    const bursts = Array.from({ length: Math.ceil(rows / burst) }, (_, b) => ids.slice(b * burst, (b + 1) * burst));
    let killed = false;
    const commitAll = async () => {
      for (let next = 0; next < bursts.length; next += writers) {
        await Promise.all(bursts.slice(next, next + writers).map((ids) => testDb.db.transaction().execute(async (trx) => {
          for (const id of ids) await jobs.enqueueInTransaction(trx, 'noop', {}, { id });
        })));
      }
    };
    const killOneMidway = async () => {
      await until('a third of the rows relayed', async () => (await relayedCount()) >= rows / 3, rows * 100);
      first.child.kill('SIGKILL');
      await first.exited;
      killed = true;
    };
    await Promise.all([commitAll(), killOneMidway()]);
    assert.ok(killed);

    await until(`all ${rows} rows relayed`, async () => (await relayedCount()) === rows, rows * 150);
    const outcomes = await db.selectFrom('job_outbox').select(['outcome', (eb) => eb.fn.countAll().as('n')]).groupBy('outcome').execute();
    const byOutcome = Object.fromEntries(outcomes.map((o) => [o.outcome, Number(o.n)]));
    console.log(`      ${rows} rows settled: ${JSON.stringify(byOutcome)}`);
    // A row the killed relay had started but not marked is started again by the other: Temporal finds the same job (existed).
    assert.equal((byOutcome.started ?? 0) + (byOutcome.existed ?? 0), rows, JSON.stringify(byOutcome));
    assert.equal(byOutcome.conflict, undefined);

    const count = async (query: string) => (await jobs.temporal.workflow.count(`TaskQueue = '${env.taskQueue}' AND WorkflowType = 'noopWorkflow'${query}`)).count;
    await until(`all ${rows} jobs completed`, async () => (await count(` AND ExecutionStatus = 'Completed'`)) === rows, rows * 200);
    // One workflow execution per committed row: none started twice, none lost.
    assert.equal(await count(''), rows);
    const sample = await Promise.all([ids[0]!, ids[Math.floor(rows / 2)]!, ids[rows - 1]!].map((id) => jobs.get(id)));
    assert.deepEqual(sample.map((r) => [r.status, r.attempts]), [['completed', 1], ['completed', 1], ['completed', 1]]);
  });
});
