import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { JobClient } from '../../src/client/job-client';
import { openDatabase } from '../../src/db/database';
import type { OutboxDatabase } from '../../src/outbox/outbox-row';
import { JobNotFoundError } from '../../src/shared/errors';
import { repoRoot, uniqueId } from '../helpers/env';
import { freePort, runCommand, type Started } from '../helpers/processes';
import { jobClientFor, killIfRunning, startTestTemporal, startWorkerProcess, until, type TestTemporal, type WorkerEnv } from '../helpers/worker-process';

const jobctl = path.join(repoRoot, 'bin/jobctl.js');

// Enqueueing inside a transaction of the jobs database (npm start's SQLite file) on a real dev
// server, with real worker processes (`node dist/worker/main.js`) whose relay starts the jobs.
describe('the job outbox on a real server: a committed job starts once, a rolled-back one never', function () {
  this.timeout(600_000);
  let temporal: TestTemporal;
  let env: WorkerEnv;
  let jobs: JobClient;
  let db: Kysely<OutboxDatabase>;
  const workers: Started[] = [];

  before(async () => {
    temporal = await startTestTemporal();
    env = { temporal, taskQueue: uniqueId('tq-outbox'), dataDir: await mkdtemp(path.join(os.tmpdir(), 'worker-data-')) };
    jobs = await jobClientFor(env);
  });
  after(async () => {
    for (const worker of workers.splice(0)) await killIfRunning(worker);
    await db?.destroy();
    await jobs?.close();
    await temporal?.stop();
  });

  const worker = async (extra: NodeJS.ProcessEnv = {}) => workers[workers.push(await startWorkerProcess({ ...env, extra })) - 1]!;
  const row = (id: string) => db.selectFrom('job_outbox').selectAll().where('job_id', '=', id).executeTakeFirst();
  const relayed = async (id: string) => (await row(id))?.relayed_at != null;

  it('starts a committed job and runs it to its end; a rolled-back transaction leaves no row and no job', async () => {
    await worker();
    // The worker created the jobs database and migrated it, the outbox's table included.
    db = openDatabase(path.join(env.dataDir, 'jobs.db'));
    const [rolledBack, committed] = [uniqueId('rolled-back'), uniqueId('committed')];
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await jobs.enqueueInTransaction(trx, 'noop', {}, { id: rolledBack });
        throw new Error('the order could not be saved');
      }),
      /could not be saved/,
    );
    const written = await db.transaction().execute((trx) => jobs.enqueueInTransaction(trx, 'noop', {}, { id: committed }));
    assert.deepEqual(written, { id: committed, existed: false });
    await until('the relay starts the committed job', () => relayed(committed), 30_000);
    assert.deepEqual(await jobs.result(committed), { attempt: 1 });
    assert.equal((await jobs.get(committed)).status, 'completed');
    assert.equal((await row(committed))?.outcome, 'started');
    // The relay takes rows in order: the committed one is started, so a rolled-back one would have been.
    assert.equal(await row(rolledBack), undefined);
    await assert.rejects(jobs.get(rolledBack), JobNotFoundError);
  });

  it('commits that enqueue go through while the worker’s relay writes to the same SQLite file', async () => {
    // Bursts of 100 rows per transaction, four at once, as a busy service commits them, while the
    // relay (another process) marks rows between them. (An enqueue that read before its first write
    // could fail with SQLITE_BUSY_SNAPSHOT, which no busy timeout retries: bench:outbox met it once.)
    const ids = Array.from({ length: 1200 }, () => uniqueId('busy'));
    for (let b = 0; b < ids.length; b += 400) {
      await Promise.all([0, 100, 200, 300].map((o) => db.transaction().execute(async (trx) => {
        for (const id of ids.slice(b + o, b + o + 100)) await jobs.enqueueInTransaction(trx, 'noop', {}, { id });
      })));
    }
    const started = () => db.selectFrom('job_outbox').select((eb) => eb.fn.countAll().as('n')).where('job_id', 'in', ids).where('outcome', '=', 'started').executeTakeFirstOrThrow();
    await until('the relay starts all of them', async () => Number((await started()).n) === ids.length, 120_000);
  });

  it('a job committed while no relay runs waits in the outbox (jobctl stats, the metric) and starts once a worker is back', async () => {
    for (const w of workers.splice(0)) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    const id = uniqueId('while-down');
    await db.transaction().execute((trx) => jobs.enqueueInTransaction(trx, 'noop', {}, { id }));

    const ctlEnv = { ...process.env, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: env.taskQueue, DATA_DIR: env.dataDir, DATABASE_URL: undefined };
    const stats = await runCommand(process.execPath, [jobctl, 'stats', '--json'], ctlEnv);
    assert.equal(stats.code, 0, stats.stderr);
    const outbox = (JSON.parse(stats.stdout) as { outbox?: { waiting: number; oldestEnqueuedAt?: string } }).outbox;
    assert.equal(outbox?.waiting, 1, stats.stdout);
    const text = await runCommand(process.execPath, [jobctl, 'stats'], ctlEnv);
    assert.match(text.stdout, /job outbox: 1 committed job\(s\) waiting for a relay \(oldest \d+\.\ds\)/);

    // A worker with its relay turned off leaves the row, and its metrics show it.
    const metricsPort = await freePort();
    await worker({ JOB_OUTBOX_RELAY: 'false', METRICS_PORT: String(metricsPort), METRICS_SAMPLE_INTERVAL: '200ms' });
    let scraped = '';
    await until('the worker samples the outbox backlog', async () => {
      scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text()).catch(() => '');
      return /^jobs_outbox_backlog(\{[^}]*\})? 1$/m.test(scraped);
    }, 30_000);
    assert.match(scraped, /^jobs_outbox_backlog_age_seconds(\{[^}]*\})? \d/m);
    assert.equal((await row(id))?.relayed_at, null, 'not relayed by a worker whose relay is off');

    await worker();
    await until('the restarted relay starts the job', () => relayed(id), 30_000);
    assert.deepEqual(await jobs.result(id), { attempt: 1 });
    assert.equal((await row(id))?.outcome, 'started');
  });
});
