import path from 'node:path';
import { waitForFrontend } from '../shared/wait-for-frontend';
import { spawnLogged, waitForPort, type ClusterChild } from './child';
import type { PostgresServer } from './postgres';
import { deployDir, type TemporalDatabases } from './scripts';

/** The ports one Temporal server process listens on, all on its own loopback address. */
export interface NodePorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** The ports of the server image (7233…, 6933…): what a node uses when nothing else is asked for. */
export const defaultNodePorts: NodePorts = {
  frontend: 7233,
  frontendHttp: 7243,
  frontendMembership: 6933,
  history: 7234,
  historyMembership: 6934,
  matching: 7235,
  matchingMembership: 6935,
  worker: 7239,
  workerMembership: 6939,
};

/** What a node is: its name, address and ports. */
export interface NodeSpec {
  /** e.g. `node-1`; names its log file. */
  name: string;
  /** Its loopback address, e.g. `127.0.0.2`; every node has its own, so their ports may repeat. */
  ip: string;
  ports: NodePorts;
  /** The network namespace it runs in (`ip netns exec <netns>`), e.g. to cut its network in a test. @defaultValue none */
  netns?: string;
}

/** A Temporal server process of the cluster, running frontend, history, matching and worker. */
export interface ServerNode {
  spec: NodeSpec;
  /** Its frontend, `ip:port`. */
  address: string;
  logFile: string;
  /** The running process; replaced by `start` after a kill or stop. */
  process: () => ClusterChild;
  /** (Re)starts the process and waits until its frontend answers. */
  start: () => Promise<void>;
  /** SIGKILL, as a crashed host would. */
  kill: () => Promise<void>;
  /** SIGTERM and wait (SIGKILL after 20 s). */
  stop: () => Promise<void>;
}

/** Settings every node of one cluster shares. */
export interface NodeSharedOptions {
  /** The `temporal-server` binary. */
  server: string;
  postgres: PostgresServer;
  databases: TemporalDatabases;
  /** Where the logs go. */
  logDir: string;
  /** The server's log level. @defaultValue 'warn' */
  logLevel?: string;
  /** How long a start may take. @defaultValue 120 s */
  readyTimeoutMs?: number;
}

/**
 * The environment that renders deploy/temporal/config/docker.yaml (the compose cluster's config
 * template) for one node.
 */
export function nodeEnvironment(spec: NodeSpec, shared: NodeSharedOptions): NodeJS.ProcessEnv {
  const p = spec.ports;
  return {
    ...process.env,
    DB: 'postgres12',
    POSTGRES_SEEDS: shared.postgres.host,
    DB_PORT: String(shared.postgres.port),
    POSTGRES_PORT: String(shared.postgres.port),
    POSTGRES_USER: shared.postgres.user,
    POSTGRES_PWD: shared.postgres.password,
    DBNAME: shared.databases.main,
    VISIBILITY_DBNAME: shared.databases.visibility,
    BIND_ON_IP: spec.ip,
    FRONTEND_GRPC_PORT: String(p.frontend),
    FRONTEND_HTTP_PORT: String(p.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(p.frontendMembership),
    HISTORY_GRPC_PORT: String(p.history),
    HISTORY_MEMBERSHIP_PORT: String(p.historyMembership),
    MATCHING_GRPC_PORT: String(p.matching),
    MATCHING_MEMBERSHIP_PORT: String(p.matchingMembership),
    WORKER_GRPC_PORT: String(p.worker),
    WORKER_MEMBERSHIP_PORT: String(p.workerMembership),
    DYNAMIC_CONFIG_FILE_PATH: path.join(deployDir, 'dynamicconfig', 'development-sql.yaml'),
    LOG_LEVEL: shared.logLevel ?? 'warn',
  };
}

/** The server's config template (deploy/temporal/config/docker.yaml), rendered by the server itself. */
export const serverConfigFile = path.join(deployDir, 'config', 'docker.yaml');

/** Starts one node: `temporal-server --config-file deploy/temporal/config/docker.yaml --allow-no-auth start`. */
export async function startServerNode(spec: NodeSpec, shared: NodeSharedOptions): Promise<ServerNode> {
  const address = `${spec.ip}:${spec.ports.frontend}`;
  const logFile = path.join(shared.logDir, `${spec.name}.log`);
  const env = nodeEnvironment(spec, shared);
  // `--config-file` (server 1.30+) instead of the deprecated `--root`/`--config`/`--env` triple.
  const args = ['--config-file', serverConfigFile, '--allow-no-auth', 'start'];
  let current: ClusterChild | undefined;
  const start = async () => {
    current = spec.netns
      ? spawnLogged(spec.name, 'ip', ['netns', 'exec', spec.netns, shared.server, ...args], env, logFile)
      : spawnLogged(spec.name, shared.server, args, env, logFile);
    await waitForPort(current, spec.ip, spec.ports.frontend, shared.readyTimeoutMs ?? 120_000, logFile);
    await waitUntilServing(current, address, shared.readyTimeoutMs ?? 120_000, logFile);
  };
  await start();
  return {
    spec,
    address,
    logFile,
    process: () => current!,
    start,
    kill: async () => current?.kill(),
    stop: async () => current?.stop(20_000),
  };
}

/** The frontend listens before its membership has settled: wait until it answers a real call. */
async function waitUntilServing(child: ClusterChild, address: string, timeoutMs: number, logFile: string): Promise<void> {
  const wait = await waitForFrontend(address, { timeoutMs, exited: child.exited, pollMs: 500, connectTimeoutMs: 2000 });
  if (wait.answered) return;
  if ('lastError' in wait) throw new Error(`the Temporal frontend at ${address} did not answer within ${timeoutMs / 1000}s: ${String(wait.lastError)}`);
  throw new Error(`${child.name} exited (${String(wait.exit)}) before its frontend answered; see ${logFile}`);
}
