// `npm run bench:cli`: how long jobctl's commands take as a user runs them (a whole process, module
// loading included), against `temporal workflow describe`, on a fresh server started as `npm start`
// starts it with no worker; and the rate `enqueueMany` sustains. Reports medians; see docs/performance.md.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { JobClient } from '../src/client/job-client';
import { catalog } from '../src/jobs/catalog';
import { provisionTemporalCli } from '../src/provision/temporal-cli';
import { loadConfig } from '../src/shared/config';
import { defaultTaskQueue } from '../src/shared/config-env-names';
import { startBenchServer } from './servers';
import { spread } from './stats';
import { repoRoot, startBenchWorker } from './workers';

const usage = `npm run bench:cli -- [--runs N] [--bulk N]
  --runs N   runs of each command (default 11); the report shows the median and the range
  --bulk N   jobs enqueued through enqueueMany, with no worker (default 2000; 0 skips it)`;

/** Wall milliseconds of one whole process. */
function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, bulk: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) return console.log(usage);
  const runs = Number(values.runs ?? 11);
  const bulk = Number(values.bulk ?? 2000);
  const cli = await provisionTemporalCli({ cacheDir: loadConfig({}, {}).cacheDir });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-cli-'));
  const server = await startBenchServer('npm-start', cli.value, dir);
  // As a user of `npm start`'s server runs jobctl: reads over its HTTP API. The gRPC rows run the same commands without it.
  const env = { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_HTTP_ADDRESS: server.httpAddress, DURABLE_JOBS_CATALOG: path.join(repoRoot, 'dist/jobs/catalog.js') };
  const grpcEnv = { ...env, TEMPORAL_HTTP_ADDRESS: undefined };
  const client = await JobClient.connect({ temporalAddress: server.address, catalog });
  try {
    // A completed job, run by `npm run worker`'s worker, which then stops: its record is read in
    // full (describe, first event, history tail, its final state in the memo), no query.
    const worker = await startBenchWorker({ kind: 'ours', address: server.address, taskQueue: defaultTaskQueue, dir, logLevel: 'warn' });
    const completed = await client.enqueue('noop', {}, { id: 'bench-cli-completed' });
    await client.result(completed.id).finally(() => worker.stop());
    // A job terminated before any worker ran it reported no attempts limit: its record reads the catalog's.
    const neverRan = await client.enqueue('noop', {}, { id: 'bench-cli-never-ran' });
    await client.temporal.workflow.getHandle(neverRan.id).terminate('bench');
    // A running job no worker answers for (enqueued once the worker has stopped), and a file of jobs for a bulk enqueue.
    const running = await client.enqueue('noop', {}, { id: 'bench-cli-running' });
    const payloadFile = path.join(dir, 'one.jsonl');
    await writeFile(payloadFile, `${JSON.stringify({ payload: {}, id: 'bench-cli-file' })}\n`);
    const jobctl = (...args: string[]) => ['node', [path.join(repoRoot, 'bin/jobctl.js'), ...args]] as const;
    const grpc = (command: readonly [string, readonly string[]]) => [...command, grpcEnv] as const;
    const commands: [string, readonly [string, readonly string[], NodeJS.ProcessEnv?]][] = [
      ['node -e 0 (the floor)', ['node', ['-e', '0']]],
      ['temporal workflow describe', [cli.value, ['workflow', 'describe', '--address', server.address, '-w', running.id]]],
      // What jobctl enqueue cannot avoid: the project's catalog, its payload schemas and zod.
      ['loading the catalog alone', ['node', ['-e', `require(${JSON.stringify(env.DURABLE_JOBS_CATALOG)})`]]],
      ['jobctl status (no worker answers)', jobctl('status', running.id)],
      ['jobctl status (completed job)', jobctl('status', completed.id)],
      ['jobctl status (terminated, never ran)', jobctl('status', neverRan.id)],
      ['jobctl status (unknown id)', jobctl('status', 'no-such-job')],
      ['jobctl status (unknown id, gRPC)', grpc(jobctl('status', 'no-such-job'))],
      ['jobctl list', jobctl('list', '--limit', '10')],
      ['jobctl list (gRPC)', grpc(jobctl('list', '--limit', '10'))],
      ['jobctl enqueue (new job)', jobctl('enqueue', 'noop', '{}')],
      ['jobctl enqueue (existing id)', jobctl('enqueue', 'noop', '{}', '--id', running.id)],
      ['jobctl enqueue (existing id, gRPC)', grpc(jobctl('enqueue', 'noop', '{}', '--id', running.id))],
      ['jobctl enqueue --file (1 line)', jobctl('enqueue', 'noop', '--file', payloadFile)],
      ['jobctl result --timeout 0', jobctl('result', running.id, '--timeout', '0')],
      ['jobctl result --timeout 0 (gRPC)', grpc(jobctl('result', running.id, '--timeout', '0'))],
      ['jobctl --help', jobctl('--help')],
    ];
    console.log(`jobctl, whole process, wall ms over ${runs} runs (after one warm-up), on ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`);
    for (const [name, [command, args, commandEnv = env]] of commands) {
      await timeProcess(command, [...args], commandEnv);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await timeProcess(command, [...args], commandEnv));
      const s = spread(times);
      console.log(`  ${name.padEnd(36)} median ${s.median.toFixed(0).padStart(5)}   range ${s.min.toFixed(0)}–${s.max.toFixed(0)}`);
    }
    if (bulk > 0) {
      // The server's own start rate at the same concurrency: plain workflow starts, no validation, no pause check.
      let next = 0;
      const plainStarted = Date.now();
      const plainStart = async () => {
        while (next < bulk) await client.temporal.workflow.start('benchPlainWorkflow', { taskQueue: 'bench-cli-plain', workflowId: `bench-plain-${next++}`, args: [{}] });
      };
      await Promise.all(Array.from({ length: 32 }, plainStart));
      const plainSeconds = (Date.now() - plainStarted) / 1000;
      console.log(`server start rate: ${bulk} plain workflow starts in ${plainSeconds.toFixed(1)} s, ${(bulk / plainSeconds).toFixed(0)} starts/s (concurrency 32)`);
      const items = Array.from({ length: bulk }, (_, i) => ({ payload: {}, id: `bench-bulk-${i}` }));
      const started = Date.now();
      const result = await client.enqueueMany('noop', items);
      const seconds = (Date.now() - started) / 1000;
      console.log(`enqueueMany: ${result.counts.started} started in ${seconds.toFixed(1)} s, ${(bulk / seconds).toFixed(0)} jobs/s (concurrency 32, no worker)`);
      const again = Date.now();
      const rerun = await client.enqueueMany('noop', items);
      console.log(`enqueueMany again (resume): ${rerun.counts.existed} existed, ${rerun.counts.started} started, in ${((Date.now() - again) / 1000).toFixed(1)} s`);
    }
  } finally {
    await client.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
