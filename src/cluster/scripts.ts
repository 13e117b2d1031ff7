import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { run } from '../provision/routes';
import type { PostgresServer } from './postgres';

/** The repository root, from `src/cluster` or `dist/cluster`. */
export const repoRoot = path.resolve(__dirname, '../..');

/** deploy/temporal: the server config template, dynamic config and scripts that docker-compose.yml mounts too. */
export const deployDir = path.join(repoRoot, 'deploy', 'temporal');

/** Names of Temporal's two databases on the cluster's PostgreSQL server. */
export interface TemporalDatabases {
  /** @defaultValue 'temporal_cluster' */
  main: string;
  /** @defaultValue 'temporal_cluster_visibility' */
  visibility: string;
}

const withTool = (tool: string) => `${path.dirname(tool)}${path.delimiter}${process.env.PATH ?? ''}`;

/**
 * Creates Temporal's databases and brings their schemas up to date with the compose cluster's own
 * script (deploy/temporal/scripts/setup-postgres.sh), the provisioned `temporal-sql-tool` on PATH.
 */
export async function setUpSchema(sqlTool: string, schemaDir: string, postgres: PostgresServer, databases: TemporalDatabases): Promise<void> {
  await run('sh', [path.join(deployDir, 'scripts', 'setup-postgres.sh')], {
    env: {
      ...process.env,
      PATH: withTool(sqlTool),
      POSTGRES_SEEDS: postgres.host,
      POSTGRES_PORT: String(postgres.port),
      POSTGRES_USER: postgres.user,
      POSTGRES_PWD: postgres.password,
      SCHEMA_DIR: schemaDir,
      DBNAME: databases.main,
      VISIBILITY_DBNAME: databases.visibility,
    },
    timeoutMs: 300_000,
  });
}

/**
 * Creates the namespace and registers the search attributes the jobs use, with the compose
 * cluster's own script (deploy/temporal/scripts/create-namespace.sh), the provisioned CLI on PATH.
 */
export async function createNamespace(temporalCli: string, address: string, namespace: string): Promise<void> {
  // The script calls `temporal`; the provisioned CLI may carry another name (the SDK's download).
  const bin = await mkdtemp(path.join(os.tmpdir(), 'temporal-cli-'));
  try {
    await symlink(temporalCli, path.join(bin, 'temporal'));
    await run('sh', [path.join(deployDir, 'scripts', 'create-namespace.sh')], {
      env: { ...process.env, PATH: withTool(path.join(bin, 'temporal')), TEMPORAL_ADDRESS: address, NAMESPACE: namespace },
      timeoutMs: 300_000,
    });
  } finally {
    await rm(bin, { recursive: true, force: true });
  }
}
