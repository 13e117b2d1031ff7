import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { JobClient } from '../../src/client/job-client';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig, type Config } from '../../src/shared/config';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { repoRoot } from './env';
import { freePort, startProcess, type Started } from './processes';
import { catalog } from '../../src/jobs/catalog';

/** A Temporal dev server process that persists to a SQLite file, so that it can be stopped and started again. */
export interface TestTemporal {
  /** `host:port` of its frontend. */
  address: string;
  /** The data directory holding `temporal.db`. */
  dataDir: string;
  /** Stops the server process (SIGTERM) and waits for it to exit. */
  stop: () => Promise<void>;
  /** Starts it again on the same ports and database. */
  start: () => Promise<void>;
}

/** Starts `temporal server start-dev` (the provisioned CLI, as `npm start` runs it) on random ports with a database file in a temp dir. */
export async function startTestTemporal(): Promise<TestTemporal> {
  const base = loadConfig();
  const cli = (await provisionTemporalCli({ cacheDir: base.cacheDir, temporalCliPath: base.temporalCliPath })).value;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'temporal-restart-'));
  const config: Config = { ...base, dataDir, devServerIp: '127.0.0.1', devServerPort: await freePort(), devServerHttpPort: await freePort(), devServerUiPort: await freePort(), namespace: 'default' };
  let server: DevServer | undefined = await startDevServer(cli, config);
  return {
    address: server.address,
    dataDir,
    stop: async () => {
      await server?.stop();
      server = undefined;
    },
    start: async () => {
      server ??= await startDevServer(cli, config);
    },
  };
}

/** Settings shared by the worker processes of one test: the cluster, task queue and data directory. */
export interface WorkerEnv {
  temporal: TestTemporal;
  taskQueue: string;
  /** DATA_DIR of the workers: the SQLite ledger and the outbox. */
  dataDir: string;
  /** Further environment, e.g. `SMTP_URL`, `SHUTDOWN_GRACE_TIME`. */
  extra?: NodeJS.ProcessEnv;
}

/** Spawns `node dist/worker/main.js` (what `npm run worker` and the image run) and waits until it polls. */
export async function startWorkerProcess(env: WorkerEnv): Promise<Started> {
  const worker = startProcess(
    process.execPath,
    [path.join(repoRoot, 'dist/worker/main.js')],
    {
      ...process.env,
      TEMPORAL_ADDRESS: env.temporal.address,
      TEMPORAL_TASK_QUEUE: env.taskQueue,
      DATA_DIR: env.dataDir,
      DATABASE_URL: undefined,
      OUTBOX_DIR: undefined,
      SMTP_URL: undefined,
      LOG_LEVEL: 'info',
      // Never the default 9464: other workers on this machine may serve it.
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      ...env.extra,
    },
    repoRoot,
  );
  await worker.waitFor('worker:started', 180_000);
  return worker;
}

/** A job client on the test cluster and task queue. */
export function jobClientFor(env: WorkerEnv): Promise<JobClient> {
  return JobClient.connect({ catalog, temporalAddress: env.temporal.address, taskQueue: env.taskQueue });
}

/** Kills a worker process that a test left running (SIGKILL), and waits for it. */
export async function killIfRunning(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null || started.child.signalCode !== null) return;
  started.child.kill('SIGKILL');
  await started.exited;
}

/** Polls `check` every 100 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
