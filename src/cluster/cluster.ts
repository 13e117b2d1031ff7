import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { provisionTemporalCli } from '../provision/temporal-cli';
import { provisionTemporalServer, provisionTemporalUi } from '../provision/temporal-server';
import type { ProvisionLog } from '../provision/routes';
import { describeError } from '../shared/errors';
import { ClusterSetupError } from './errors';
import { existingPostgres, startLocalPostgres, type LocalPostgres, type PostgresServer } from './postgres';
import { freeNodePorts } from './ports';
import { createNamespace, setUpSchema, type TemporalDatabases } from './scripts';
import { defaultNodePorts, startServerNode, type NodeSpec, type ServerNode } from './server-node';
import { startUiServer, type UiServer } from './ui-server';

/** How to boot the native cluster. */
export interface ClusterOptions {
  /** Folder for the cluster's own PostgreSQL data (`pg/`) and the logs (`logs/`). */
  dir: string;
  /** Temporal server processes, each running every role. @defaultValue 2 */
  nodes?: number;
  /** Node `i`'s (0-based) loopback address. @defaultValue `127.0.0.${i + 2}` */
  nodeIp?: (i: number) => string;
  /** The network namespace node `i` runs in (`ip netns exec`), if any; its ports are then not probed. @defaultValue none */
  nodeNetns?: (i: number) => string | undefined;
  /** `default`: the server image's ports (7233, 6933, …) on each node's address; `free`: ports free right now. @defaultValue 'default' */
  ports?: 'default' | 'free';
  /** An existing server's admin URL (`postgres://user:pass@host:port/db`); unset: our own server in `<dir>/pg`. @defaultValue unset */
  postgresUrl?: string;
  /** Port of our own PostgreSQL server on 127.0.0.1. @defaultValue 55432 */
  postgresPort?: number;
  /** Addresses our own PostgreSQL listens on (the first is the one the nodes use), and extra networks it lets in. @defaultValue `{ listen: ['127.0.0.1'] }` */
  postgresNetwork?: { listen: string[]; allow?: string[] };
  /** Temporal's databases. @defaultValue `{ main: 'temporal_cluster', visibility: 'temporal_cluster_visibility' }` */
  databases?: TemporalDatabases;
  /** @defaultValue 'default' */
  namespace?: string;
  /** The Web UI's port on 127.0.0.1, or false for none. @defaultValue 8080 */
  uiPort?: number | false;
  /** Cache of the provisioned binaries. */
  cacheDir: string;
  /** TEMPORAL_CLI_PATH, if set. */
  temporalCliPath?: string;
  /** The servers' log level. @defaultValue 'warn' */
  logLevel?: string;
  /** Progress lines. @defaultValue silent */
  log?: ProvisionLog;
}

/** A running native cluster. */
export interface Cluster {
  /** The PostgreSQL server Temporal uses (and the jobs ledger may use). */
  postgres: PostgresServer;
  /** Our own PostgreSQL server, when no `postgresUrl` was given: restartable. */
  localPostgres?: LocalPostgres;
  nodes: ServerNode[];
  ui?: UiServer;
  /** The frontend of node 1, `ip:port`. */
  address: string;
  namespace: string;
  /** Where each process writes its log. */
  logDir: string;
  /** Stops the UI, the nodes, then our own PostgreSQL. */
  stop: () => Promise<void>;
}

/**
 * Boots a PostgreSQL-backed Temporal cluster from provisioned binaries and the compose cluster's
 * files: the schema script, the config template, the dynamic config and the namespace script.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const log = options.log ?? (() => {});
  const namespace = options.namespace ?? 'default';
  const databases = options.databases ?? { main: 'temporal_cluster', visibility: 'temporal_cluster_visibility' };
  const logDir = path.join(path.resolve(options.dir), 'logs');
  await mkdir(logDir, { recursive: true });
  const [server, cli, ui] = await Promise.all([
    provisionTemporalServer({ cacheDir: options.cacheDir, log }),
    provisionTemporalCli({ cacheDir: options.cacheDir, temporalCliPath: options.temporalCliPath, log }),
    options.uiPort === false ? undefined : provisionTemporalUi({ cacheDir: options.cacheDir, log }),
  ]);

  const started: { stop: () => Promise<void> }[] = [];
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => {});
  };
  try {
    let postgres: PostgresServer;
    let localPostgres: LocalPostgres | undefined;
    if (options.postgresUrl) {
      postgres = existingPostgres(options.postgresUrl);
    } else {
      localPostgres = await startLocalPostgres(path.join(path.resolve(options.dir), 'pg'), options.postgresPort ?? 55432, options.postgresNetwork ?? {});
      started.push(localPostgres);
      postgres = localPostgres;
      log(`PostgreSQL: our own server on ${postgres.host}:${postgres.port} (${localPostgres.dataDir})`, 'info');
    }
    await setUpSchema(server.value.sqlTool, server.value.schemaDir, postgres, databases).catch((err: unknown) => {
      throw new ClusterSetupError(`setting up Temporal's schema on ${postgres.host}:${postgres.port} failed: ${describeError(err)}`, { cause: err });
    });
    log(`schema: ${databases.main}, ${databases.visibility} are up to date`, 'info');

    const nodes: ServerNode[] = [];
    for (let i = 0; i < (options.nodes ?? 2); i++) {
      const ip = options.nodeIp?.(i) ?? `127.0.0.${i + 2}`;
      const netns = options.nodeNetns?.(i);
      // A fresh namespace has every port free; its addresses cannot be probed from here.
      const ports = options.ports === 'free' ? await freeNodePorts(netns ? '127.0.0.1' : ip) : defaultNodePorts;
      const spec: NodeSpec = { name: `node-${i + 1}`, ip, ports, netns };
      // One at a time: the first node writes the cluster metadata the others then read.
      const node = await startServerNode(spec, { server: server.value.server, postgres, databases, logDir, logLevel: options.logLevel });
      started.push(node);
      nodes.push(node);
      log(`${spec.name}: frontend ${node.address} (log ${node.logFile})`, 'info');
    }
    const address = nodes[0]!.address;
    await createNamespace(cli.value, address, namespace);
    let uiServer: UiServer | undefined;
    if (ui && options.uiPort !== false) {
      uiServer = await startUiServer(ui.value.uiServer, ui.value.root, address, options.uiPort ?? 8080, logDir);
      started.push({ stop: () => uiServer!.process.stop() });
    }
    return { postgres, localPostgres, nodes, ui: uiServer, address, namespace, logDir, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
