import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { threadProbe } from './threads';

/** Repository root. */
export const repoRoot = path.resolve(__dirname, '..');

/** Which worker a scenario runs. */
export type WorkerKind =
  /** The jobs worker as `npm run worker` runs it (dist/worker/main.js): every job type, logs, interceptors. */
  | 'ours'
  /** bench/plain/worker.ts: the samples-style application with the SDK's default options. */
  | 'plain'
  /** bench/eager-worker.ts: our worker with the enqueuing client in its process (eager workflow start). */
  | 'ours-eager'
  /** bench/activity/worker.ts: the library's worker over a user-defined catalog (one job type, one regular activity), as a team's worker.ts runs it. */
  | 'ours-activity';

/** The TypeScript entry point (run through tsx) of each worker that is not `npm run worker`'s. */
const tsWorkers: Record<Exclude<WorkerKind, 'ours'>, string> = {
  plain: 'plain/worker.ts',
  'ours-eager': 'eager-worker.ts',
  'ours-activity': 'activity/worker.ts',
};

/** A worker running in its own process. */
export interface BenchWorker {
  pid?: number;
  /** Where its worker threads noted their thread IDs (bench/thread-probe.cjs). */
  threadsFile: string;
  /** Stops it (SIGTERM, which drains) and waits for it to exit. */
  stop(): Promise<void>;
}

/** What a worker process is started with. */
export interface WorkerLaunch {
  kind: WorkerKind;
  address: string;
  taskQueue: string;
  /** Directory for its data (jobs database, outbox) and its log file. */
  dir: string;
  /** LOG_LEVEL of our worker. @defaultValue 'info', as `npm start` */
  logLevel?: string;
  /** Write a V8 CPU profile of the worker into this directory. @defaultValue no profile */
  cpuProfileDir?: string;
  /** Extra environment, e.g. the in-process load's settings. @defaultValue none */
  env?: Record<string, string>;
  /** The checkout whose `dist/worker/main.js` an `ours` worker runs. @defaultValue this repository */
  root?: string;
}

/** Starts a worker process and waits until it polls. */
export async function startBenchWorker(launch: WorkerLaunch): Promise<BenchWorker> {
  const logFile = path.join(launch.dir, `worker-${launch.taskQueue}.log`);
  const threadsFile = path.join(launch.dir, `threads-${launch.taskQueue}`);
  const profile = [...(launch.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', launch.cpuProfileDir] : []), '--require', threadProbe];
  let args: string[];
  if (launch.kind === 'ours') {
    const main = path.join(launch.root ?? repoRoot, 'dist/worker/main.js');
    if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build first${launch.root ? ` in ${launch.root}` : ' (npm run bench does)'}`);
    args = [...profile, main];
  } else {
    args = [...profile, '--import', 'tsx', path.join(launch.root ? path.join(launch.root, 'bench') : __dirname, tsWorkers[launch.kind])];
  }
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: launch.address,
    TEMPORAL_TASK_QUEUE: launch.taskQueue,
    BENCH_TASK_QUEUE: launch.taskQueue,
    DATA_DIR: launch.dir,
    DATABASE_URL: '',
    LOG_LEVEL: launch.logLevel ?? 'info',
    // A bench worker serves no metrics: it must not clash with an `npm start` worker on :9464.
    METRICS: 'false',
    SHUTDOWN_GRACE_TIME: '5s',
    BENCH_THREADS_FILE: threadsFile,
    ...launch.env,
  };
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, { cwd: launch.root ?? repoRoot, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  // Ready once the server sees it poll (its log level may hide its own start message).
  const connection = await Connection.connect({ address: launch.address });
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: launch.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      if (pollers && pollers.length > 0) break;
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        const log = await readFile(logFile, 'utf8').catch(() => '');
        throw new Error(`the ${launch.kind} worker did not start polling:\n${log.slice(-4000)}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await connection.close();
  }
  return { pid: child.pid, threadsFile, stop };
}
