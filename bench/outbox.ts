// `npm run bench:outbox`: the job outbox measured. On a fresh server started as `npm start` starts
// it, with `npm run worker`'s worker relaying (SQLite by default, `--database postgres://…`):
// commit-to-start latency with the relay idle (one commit at a time) and under load (bursts of
// commits), and the relay's start rate against `enqueueMany` on the same server, interleaved.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { JobClient } from '../src/client/job-client';
import { openDatabase } from '../src/db/database';
import { catalog } from '../src/jobs/catalog';
import { provisionTemporalCli } from '../src/provision/temporal-cli';
import { loadConfig } from '../src/shared/config';
import { defaultTaskQueue } from '../src/shared/config-env-names';
import { collectTimes, waitForAll } from './collect';
import { startBenchServer } from './servers';
import { percentiles, median, spread } from './stats';
import { startBenchWorker } from './workers';

const usage = `npm run bench:outbox -- [--jobs N] [--idle N] [--repeat N] [--database URL]
  --jobs N        jobs per burst run and per enqueueMany run (default 2000)
  --idle N        jobs committed one at a time, 100 ms apart (default 100)
  --repeat N      interleaved repeats of the load runs (default 3)
  --database URL  a PostgreSQL jobs database (default: a SQLite file, as npm start)`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { jobs: { type: 'string' }, idle: { type: 'string' }, repeat: { type: 'string' }, database: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return console.log(usage);
  const [jobsPerRun, idleJobs, repeats] = [Number(values.jobs ?? 2000), Number(values.idle ?? 100), Number(values.repeat ?? 3)];
  const cli = await provisionTemporalCli({ cacheDir: loadConfig({}, {}).cacheDir });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-outbox-'));
  const server = await startBenchServer('npm-start', cli.value, dir);
  const databaseUrl = values.database ?? path.join(dir, 'jobs.db');
  const worker = await startBenchWorker({ kind: 'ours', address: server.address, taskQueue: defaultTaskQueue, dir, logLevel: 'warn', env: { DATABASE_URL: databaseUrl } });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the outbox's and the catalog's tables
  const db: Kysely<any> = openDatabase(databaseUrl);
  const jobs = await JobClient.connect({ temporalAddress: server.address, catalog });
  let serial = 0;
  const nextId = (kind: string) => `bench-outbox-${kind}-${serial++}`;
  const commit = (ids: string[]) => db.transaction().execute(async (trx) => {
    for (const id of ids) await jobs.enqueueInTransaction(trx, 'noop', {}, { id });
  });
  try {
    // The relay idle: one commit at a time; latency is the commit's end to the server's start event.
    const idle = new Map<string, number>();
    for (let i = 0; i < idleJobs; i++) {
      const id = nextId('idle');
      await commit([id]);
      idle.set(id, Date.now());
      await sleep(100);
    }
    const idleLatency = await latencies(jobs, idle);
    console.log(`idle, ${idleJobs} jobs one at a time: commit→start p50 ${idleLatency.toStart.p50} / p99 ${idleLatency.toStart.p99} ms; commit→running p50 ${idleLatency.toRunning.p50} / p99 ${idleLatency.toRunning.p99} ms`);

    const runs: { relay: number; many: number; load: ReturnType<typeof percentiles> }[] = [];
    for (let r = 1; r <= repeats; r++) {
      // Bursts of 100 rows per transaction, four transactions at once.
      const committed = new Map<string, number>();
      const ids = Array.from({ length: jobsPerRun }, () => nextId(`load${r}`));
      const first = Date.now();
      for (let b = 0; b < ids.length; b += 400) {
        await Promise.all([0, 100, 200, 300].map(async (o) => {
          const burst = ids.slice(b + o, b + o + 100);
          if (burst.length === 0) return;
          await commit(burst);
          const at = Date.now();
          for (const id of burst) committed.set(id, at);
        }));
      }
      const load = await latencies(jobs, committed);
      const relay = jobsPerRun / ((load.lastStart - first) / 1000);
      // The same number of jobs through enqueueMany on the same server and worker.
      const manyIds = Array.from({ length: jobsPerRun }, () => nextId(`many${r}`));
      const manyFirst = Date.now();
      await jobs.enqueueMany('noop', manyIds.map((id) => ({ payload: {}, id })), { concurrency: 100 });
      const many = await latencies(jobs, new Map(manyIds.map((id) => [id, manyFirst])));
      const manyRate = jobsPerRun / ((many.lastStart - manyFirst) / 1000);
      runs.push({ relay, many: manyRate, load: load.toStart });
      console.log(`repeat ${r}: relay ${relay.toFixed(1)} starts/s (commit→start p50 ${load.toStart.p50} / p99 ${load.toStart.p99} ms); enqueueMany ${manyRate.toFixed(1)} starts/s; ratio ${(relay / manyRate).toFixed(2)}`);
    }
    const ratio = spread(runs.map((r) => r.relay / r.many));
    console.log(`\nunder load (${jobsPerRun} jobs in bursts, ${repeats} repeats, medians): commit→start p50 ${median(runs.map((r) => r.load.p50))} / p99 ${median(runs.map((r) => r.load.p99))} ms; relay ${median(runs.map((r) => r.relay)).toFixed(1)} starts/s, enqueueMany ${median(runs.map((r) => r.many)).toFixed(1)}; relay/enqueueMany ${ratio.median.toFixed(2)} (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`);
  } finally {
    await jobs.close();
    await db.destroy();
    await worker.stop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each job's start event and first workflow task against the time it was committed (or enqueued), once all have closed. */
async function latencies(jobs: JobClient, committed: Map<string, number>) {
  const ids = [...committed.keys()];
  closedSoFar += ids.length;
  await waitForAll(jobs.temporal, defaultTaskQueue, closedSoFar, Math.max(120_000, ids.length * 500));
  const times = await collectTimes(jobs.temporal, ids);
  const toStart = ids.map((id) => times.get(id)!.createdAt - committed.get(id)!);
  const toRunning = ids.map((id) => times.get(id)!.startedAt - committed.get(id)!);
  return { toStart: percentiles(toStart), toRunning: percentiles(toRunning), lastStart: Math.max(...ids.map((id) => times.get(id)!.createdAt)) };
}

/** The jobs measured so far, all on the one task queue: waitForAll counts every closed one. */
let closedSoFar = 0;

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
