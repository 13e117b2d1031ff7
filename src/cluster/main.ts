// `npm run cluster`: a PostgreSQL-backed Temporal cluster on this machine, without Docker — our own
// PostgreSQL (or CLUSTER_POSTGRES_URL), CLUSTER_NODES Temporal nodes, the Web UI, and
// CLUSTER_WORKERS worker processes of this project. Ctrl-C stops everything.
import { redactDatabaseUrl } from '../db/database';
import { loadBuiltInSettings } from '../jobs/settings';
import { loadConfig } from '../shared/config';
import { describeError } from '../shared/errors';
import { startCluster, type Cluster } from './cluster';
import { loadClusterConfig } from './config';
import { clusterMembers } from './membership';
import { ensureDatabase } from './postgres';
import { startWorkerProcess, type WorkerProcess } from './workers';

async function main(): Promise<void> {
  const config = loadConfig();
  const settings = loadClusterConfig(config.dataDir);
  const log = (line: string) => console.error(`[cluster] ${line}`);
  // Set once the cluster is up; a signal before then stops whatever startCluster started itself.
  const running: { cluster?: Cluster } = {};
  const workers: WorkerProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log('stopping: workers drain first, then the nodes and PostgreSQL');
      await Promise.all(workers.map((w) => w.stop()));
      await running.cluster?.stop();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop().finally(() => process.exit(130)));

  const cluster = (running.cluster = await startCluster({
    dir: settings.dir,
    nodes: settings.nodes,
    ports: settings.ports,
    postgresUrl: settings.postgresUrl,
    postgresPort: settings.postgresPort,
    namespace: config.namespace,
    uiPort: settings.uiPort,
    cacheDir: config.cacheDir,
    temporalCliPath: config.temporalCliPath,
    log,
  }));
  // The ledger lives on the cluster's PostgreSQL server unless DATABASE_URL says otherwise.
  const builtIn = loadBuiltInSettings(config.dataDir);
  const databaseUrl = process.env.DATABASE_URL || (await ensureDatabase(cluster.postgres, 'durable_jobs'));
  for (let i = 0; i < settings.workers; i++) {
    const node = cluster.nodes[i % cluster.nodes.length]!;
    const env = { DATABASE_URL: databaseUrl, OUTBOX_DIR: builtIn.outboxDir, REPORTS_DIR: builtIn.reportsDir, TEMPORAL_NAMESPACE: config.namespace };
    workers.push(await startWorkerProcess(`worker-${i + 1}`, node.address, env, cluster.logDir));
  }
  const members = await clusterMembers(cluster.postgres, 'temporal_cluster');
  console.log(
    [
      '',
      `A Temporal cluster of ${cluster.nodes.length} node(s) is running (namespace ${cluster.namespace}, task queue ${config.taskQueue}).`,
      ...cluster.nodes.map((n) => `  ${n.spec.name}:  frontend ${n.address}   HTTP API ${httpAddressOf(n)}   log ${n.logFile}`),
      `  members:  ${members.map((m) => `${m.role}@${m.address}`).join(', ')}`,
      `  Web UI:   ${cluster.ui?.url ?? '(none)'}`,
      `  workers:  ${workers.map((w) => `${w.name} → ${w.address}`).join(', ')}`,
      `  ledger:   ${redactDatabaseUrl(databaseUrl)}`,
      `  Enqueue:  TEMPORAL_ADDRESS=${cluster.address} TEMPORAL_HTTP_ADDRESS=${httpAddressOf(cluster.nodes[0]!)} npx jobctl enqueue send-email '{"to":"ada@example.com","subject":"Hi","body":"Hello","userId":"u1"}'`,
      '  Stop:     Ctrl-C',
      '',
    ].join('\n'),
  );
  // Runs until a signal; a node or worker that dies is reported, not restarted.
  for (const part of [...cluster.nodes.map((n) => ({ name: n.spec.name, child: n.process(), logFile: n.logFile })), ...workers.map((w) => ({ name: w.name, child: w.process(), logFile: w.logFile }))]) {
    void part.child.exited.then((code) => stopping ?? log(`${part.name} exited (${String(code)}); see ${part.logFile}`));
  }
}

/** A node's frontend HTTP API, where jobctl reads and enqueues without loading the gRPC client. */
function httpAddressOf(node: { spec: { ip: string; ports: { frontendHttp: number } } }): string {
  return `${node.spec.ip}:${node.spec.ports.frontendHttp}`;
}

main().catch((err) => {
  console.error(describeError(err));
  process.exit(1);
});
