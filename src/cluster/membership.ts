import pg from 'pg';
import type { PostgresServer } from './postgres';

/** One service of one node, as the cluster's membership table records it. */
export interface ClusterMember {
  role: 'frontend' | 'history' | 'matching' | 'worker';
  /** Its membership address, `ip:port`. */
  address: string;
  /** Seconds since its last heartbeat. */
  heartbeatAgeSeconds: number;
}

const roles = { 1: 'frontend', 2: 'history', 3: 'matching', 4: 'worker' } as const;

/**
 * The members that heartbeated within `freshSeconds`. The nodes find each other through this table
 * (ringpop's seed list); `temporal operator cluster describe` in CLI 1.5.1 shows the cluster, not
 * its hosts, so this is where both nodes are seen.
 */
export async function clusterMembers(postgres: PostgresServer, database: string, freshSeconds = 30): Promise<ClusterMember[]> {
  const client = new pg.Client({ connectionString: postgres.url(database) });
  await client.connect();
  try {
    const { rows } = await client.query<{ role: number; rpc_address: string; rpc_port: number; age: number }>(
      `SELECT role, rpc_address, rpc_port, EXTRACT(EPOCH FROM (now() AT TIME ZONE 'UTC' - last_heartbeat))::float AS age
         FROM cluster_membership WHERE last_heartbeat > (now() AT TIME ZONE 'UTC') - make_interval(secs => $1)
         ORDER BY rpc_address, role`,
      [freshSeconds],
    );
    return rows.map((r) => ({ role: roles[r.role as keyof typeof roles] ?? 'worker', address: `${r.rpc_address}:${r.rpc_port}`, heartbeatAgeSeconds: Math.round(r.age) }));
  } finally {
    await client.end();
  }
}
