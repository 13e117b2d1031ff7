import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../shared/errors';

const port = z.coerce.number().int().min(1).max(65535);

/** Settings of `npm run cluster`, read from the environment like src/shared/config.ts's. */
const fields = {
  /** Folder for the cluster's own PostgreSQL data and its logs. @defaultValue '<DATA_DIR>/cluster' */
  dir: { env: 'CLUSTER_DIR', schema: z.string().min(1).optional() },
  /** Temporal server processes (nodes), on 127.0.0.2, 127.0.0.3, …. @defaultValue 2 */
  nodes: { env: 'CLUSTER_NODES', schema: z.coerce.number().int().min(1).max(8).default(2) },
  /** Worker processes of this project, spread over the nodes. @defaultValue 2 */
  workers: { env: 'CLUSTER_WORKERS', schema: z.coerce.number().int().min(0).max(16).default(2) },
  /** Admin URL of an existing PostgreSQL server to use instead of our own. @defaultValue unset (our own, initdb'd into CLUSTER_DIR) */
  postgresUrl: { env: 'CLUSTER_POSTGRES_URL', schema: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional() },
  /** Port of our own PostgreSQL server on 127.0.0.1. @defaultValue 55432 */
  postgresPort: { env: 'CLUSTER_POSTGRES_PORT', schema: port.default(55432) },
  /** Port of the Web UI on 127.0.0.1. @defaultValue 8080 */
  uiPort: { env: 'CLUSTER_UI_PORT', schema: port.default(8080) },
  /** `default`: the server image's ports on each node's address; `free`: ports that are free now. @defaultValue 'default' */
  ports: { env: 'CLUSTER_PORTS', schema: z.enum(['default', 'free']).default('default') },
} as const;

type Fields = typeof fields;

/** The validated settings of `npm run cluster`. */
export type ClusterConfig = Omit<{ -readonly [K in keyof Fields]: z.output<Fields[K]['schema']> }, 'dir' | 'postgresUrl'> & { dir: string; postgresUrl?: string };

/** Reads and validates the cluster's settings; errors name the variable. */
export function loadClusterConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): ClusterConfig {
  const shape = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.schema])) as { [K in keyof Fields]: Fields[K]['schema'] };
  const raw = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, env[f.env] === '' ? undefined : env[f.env]]));
  const result = z.object(shape).safeParse(raw);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => ({ path: fields[String(i.path[0]) as keyof Fields].env, message: i.message })));
  }
  return { ...result.data, dir: path.resolve(result.data.dir ?? path.join(dataDir, 'cluster')) };
}
