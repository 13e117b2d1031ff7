import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { JobClient } from '../../src/client/job-client';
import { startCluster, type Cluster, type ClusterOptions } from '../../src/cluster/cluster';
import { freePortOn } from '../../src/cluster/ports';
import { ensureDatabase } from '../../src/cluster/postgres';
import { startWorkerProcess, type WorkerProcess } from '../../src/cluster/workers';
import { openDatabase } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { builtInMigrations } from '../../src/jobs/database/migrations';
import type { Db } from '../../src/jobs/database/schema';
import { loadConfig } from '../../src/shared/config';
import { catalog } from '../../src/jobs/catalog';

/** One native cluster for a test file: two nodes on our own PostgreSQL, a client on node 1, the ledger beside Temporal. */
export interface ClusterTestEnv {
  cluster: Cluster;
  client: Client;
  /** The jobs database (ledger, accounts, synced records) the workers use, on the cluster's PostgreSQL. */
  db: Db;
  databaseUrl: string;
  /** A folder for outboxes and reports. */
  tmpDir: string;
  /** Starts `count` worker processes on `taskQueue`, worker `i` against node `i mod nodes`. */
  startWorkers: (taskQueue: string, count: number, env?: NodeJS.ProcessEnv) => Promise<WorkerProcess[]>;
  jobs: (taskQueue: string) => JobClient;
  stop: () => Promise<void>;
}

/** Boots the cluster (provisioning the binaries if the cache is cold) on free ports. */
export async function startClusterTestEnv(options: Partial<ClusterOptions> = {}): Promise<ClusterTestEnv> {
  const config = loadConfig();
  const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'cluster-test-'));
  const cluster = await startCluster({
    dir: tmpDir,
    nodes: 2,
    ports: 'free',
    postgresPort: await freePortOn('127.0.0.1'),
    uiPort: false,
    cacheDir: config.cacheDir,
    temporalCliPath: config.temporalCliPath,
    ...options,
  });
  const workers: WorkerProcess[] = [];
  let connection: Connection | undefined;
  let db: Db | undefined;
  try {
    const databaseUrl = await ensureDatabase(cluster.postgres, 'durable_jobs');
    db = openDatabase(databaseUrl);
    await migrateToLatest(db, builtInMigrations);
    connection = await Connection.connect({ address: cluster.address });
    const client = new Client({ connection, namespace: cluster.namespace });
    const startWorkers = async (taskQueue: string, count: number, env: NodeJS.ProcessEnv = {}) => {
      const started: WorkerProcess[] = [];
      for (let i = 0; i < count; i++) {
        const node = cluster.nodes[(workers.length + i) % cluster.nodes.length]!;
        const workerEnv = {
          DATABASE_URL: databaseUrl,
          TEMPORAL_TASK_QUEUE: taskQueue,
          TEMPORAL_NAMESPACE: cluster.namespace,
          OUTBOX_DIR: path.join(tmpDir, 'outbox'),
          REPORTS_DIR: path.join(tmpDir, 'reports'),
          LOG_LEVEL: 'info',
          SHUTDOWN_GRACE_TIME: '5s',
          ...env,
        };
        started.push(await startWorkerProcess(`worker-${workers.length + i + 1}`, node.address, workerEnv, cluster.logDir));
      }
      workers.push(...started);
      return started;
    };
    return {
      cluster,
      client,
      db,
      databaseUrl,
      tmpDir,
      startWorkers,
      jobs: (taskQueue) => new JobClient(client, { catalog, taskQueue }),
      stop: async () => {
        await Promise.all(workers.map((w) => w.kill()));
        await connection?.close();
        await db?.destroy();
        await cluster.stop();
        await rm(tmpDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(workers.map((w) => w.kill()));
    await connection?.close();
    await db?.destroy();
    await cluster.stop();
    throw err;
  }
}
