import assert from 'node:assert/strict';
import path from 'node:path';
import { loadClusterConfig } from '../../src/cluster/config';
import { findPostgresBinaries } from '../../src/cluster/postgres';
import { ClusterSetupError } from '../../src/cluster/errors';
import { ConfigError } from '../../src/shared/errors';

describe('npm run cluster settings', () => {
  it('defaults to two nodes, two workers, our own PostgreSQL and the image ports', () => {
    const c = loadClusterConfig('/data', {});
    assert.deepEqual({ ...c }, { dir: path.resolve('/data/cluster'), nodes: 2, workers: 2, postgresUrl: undefined, postgresPort: 55432, uiPort: 8080, ports: 'default' });
  });

  it('reads the environment and names the variable of a bad value', () => {
    const c = loadClusterConfig('/data', { CLUSTER_NODES: '3', CLUSTER_POSTGRES_URL: 'postgres://u:p@db:5432/postgres', CLUSTER_DIR: '/tmp/c' });
    assert.equal(c.nodes, 3);
    assert.equal(c.postgresUrl, 'postgres://u:p@db:5432/postgres');
    assert.equal(c.dir, '/tmp/c');
    assert.throws(() => loadClusterConfig('/data', { CLUSTER_NODES: 'two' }), (err: unknown) => err instanceof ConfigError && /CLUSTER_NODES/.test(err.message));
    assert.throws(() => loadClusterConfig('/data', { CLUSTER_POSTGRES_URL: 'mysql://x' }), (err: unknown) => err instanceof ConfigError && /CLUSTER_POSTGRES_URL/.test(err.message));
  });

  it('says what is missing when PostgreSQL is not installed where it looks', () => {
    assert.throws(
      () => findPostgresBinaries({ PG_BIN_DIR: '/nonexistent/bin' }),
      (err: unknown) => err instanceof ClusterSetupError && /jobs:cluster-setup/.test(err.message) && /initdb, pg_ctl/.test(err.message) && /CLUSTER_POSTGRES_URL/.test(err.message),
    );
  });
});
