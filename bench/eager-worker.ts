// The `ours-eager` scenario's process: the jobs worker plus the client that enqueues, sharing the
// worker's NativeConnection so that JobClient can request eager workflow start. Env as for
// `npm run worker`, plus BENCH_JOBS, BENCH_CONCURRENCY, BENCH_RATE (optional) and BENCH_OUT. It
// offers the load once the file BENCH_OUT.go exists (the bench creates it after reading this
// process's CPU time; a signal would not do: the SDK's runtime shuts the worker down on SIGUSR2),
// then writes each job's enqueue time to BENCH_OUT.
import { access, rename, writeFile } from 'node:fs/promises';
import { Client } from '@temporalio/client';
import { JobClient } from '../src/client/job-client';
import { loadConfig } from '../src/shared/config';
import { createWorker } from '../src/worker/create-worker';
import { worker } from '../src/app/worker';
import { installRuntime } from '../src/worker/logger';
import { offerLoad } from './load';
import { catalog } from '../src/jobs/catalog';

async function main(): Promise<void> {
  const config = loadConfig();
  const { logger } = await installRuntime(config);
  const { workers, plans, close } = await createWorker({ ...worker, config });
  const shared = workers[plans.findIndex((p) => p.taskQueue === config.taskQueue)];
  const connection = shared?.connection;
  if (!connection) throw new Error('no worker serves the shared task queue');
  const jobs = new JobClient(new Client({ connection, namespace: config.namespace }), { catalog, taskQueue: config.taskQueue, eagerStart: true });
  const running = Promise.all(workers.map((w) => w.run()));
  logger.info('worker:started');
  const out = process.env.BENCH_OUT!;
  void (async () => {
    while (!(await access(`${out}.go`).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 50));
    const enqueuedAt = await offerLoad(async (id) => void (await jobs.enqueue('noop', {}, { id })), {
      jobs: Number(process.env.BENCH_JOBS),
      concurrency: Number(process.env.BENCH_CONCURRENCY ?? 100),
      rate: process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined,
      idOf: (i) => `${config.taskQueue}-${i}`,
    });
    // Renamed into place, so the bench never reads half a file.
    await writeFile(`${out}.tmp`, JSON.stringify([...enqueuedAt]));
    await rename(`${out}.tmp`, out);
  })();
  try {
    await running;
  } finally {
    await close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
