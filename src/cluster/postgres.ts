import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { run } from '../provision/routes';
import { ClusterSetupError } from './errors';
import { onParentDeath } from './reaper';

/** Where the cluster's PostgreSQL is and how to log in; both Temporal and the jobs ledger use it. */
export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
  /** `postgres://user:pass@host:port/<database>`. */
  url: (database: string) => string;
}

/** A PostgreSQL server of our own: initdb into a folder, started and stopped with pg_ctl. */
export interface LocalPostgres extends PostgresServer {
  dataDir: string;
  /** Stops it as a crash would (`pg_ctl stop -m immediate`), then starts it again after `downMs`. */
  restart: (downMs?: number) => Promise<void>;
  /** Stops it (`-m fast`) and waits. */
  stop: () => Promise<void>;
}

/**
 * The folder of PostgreSQL's server binaries (`initdb`, `pg_ctl`): `PG_BIN_DIR`, else the newest
 * Debian `postgresql` package's `/usr/lib/postgresql/<major>/bin`.
 */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): string {
  const candidates = env.PG_BIN_DIR
    ? [env.PG_BIN_DIR]
    : (existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [])
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin`);
  const found = candidates.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')));
  if (!found) {
    throw new ClusterSetupError(
      `no PostgreSQL server binaries (initdb, pg_ctl) in ${env.PG_BIN_DIR ? `PG_BIN_DIR=${env.PG_BIN_DIR}` : '/usr/lib/postgresql/*/bin'}: ` +
        'install PostgreSQL (Debian: apt-get install postgresql), set PG_BIN_DIR, or give an existing server with CLUSTER_POSTGRES_URL',
    );
  }
  return found;
}

/** initdb refuses to run as root: as root, the server runs as the `postgres` user. */
function asServerUser(): { wrap: (cmd: string, args: string[]) => [string, string[]]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { wrap: (cmd, args) => [cmd, args] };
  const ids = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  let uid: number;
  let gid: number;
  try {
    uid = ids('-u');
    gid = ids('-g');
  } catch {
    throw new ClusterSetupError('running as root, PostgreSQL needs a `postgres` user to run as (Debian\'s postgresql package creates it)');
  }
  return { wrap: (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]], uid, gid };
}

/** Options of {@link startLocalPostgres}. */
export interface LocalPostgresOptions {
  /** Addresses it listens on; the first is the one clients are told. @defaultValue ['127.0.0.1'] */
  listen?: string[];
  /** Extra client networks (CIDR) allowed to log in with the password, e.g. a network namespace's link. @defaultValue none (loopback only) */
  allow?: string[];
  /** PostgreSQL's `bin` folder. @defaultValue {@link findPostgresBinaries} */
  binDir?: string;
}

/**
 * Creates (first time) and starts a PostgreSQL server in `dataDir`, listening on 127.0.0.1:`port`
 * (or `options.listen`), with password login for `postgres`/`postgres`. Restarting it affects
 * nobody else.
 */
export async function startLocalPostgres(dataDir: string, port: number, options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
  const binDir = options.binDir ?? findPostgresBinaries();
  const listen = options.listen ?? ['127.0.0.1'];
  const user = asServerUser();
  const bin = (name: string) => path.join(binDir, name);
  const exec = (name: string, args: string[]) => run(...user.wrap(bin(name), args));
  const password = 'postgres';
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const pwfile = path.join(dataDir, '..', `.pwfile-${path.basename(dataDir)}`);
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (user.uid !== undefined) {
      // The folders above must let the server user through to its data folder.
      for (let dir = path.dirname(dataDir); dir !== path.dirname(dir) && dir !== os.tmpdir(); dir = path.dirname(dir)) await chmod(dir, 0o755).catch(() => {});
      await chown(dataDir, user.uid, user.gid!);
      await chown(pwfile, user.uid, user.gid!);
    }
    await exec('initdb', ['-D', dataDir, '-U', 'postgres', '--pwfile', pwfile, '--auth', 'scram-sha-256', '-E', 'UTF8', '--no-instructions']);
    if (options.allow?.length) await appendFile(path.join(dataDir, 'pg_hba.conf'), options.allow.map((net) => `host all all ${net} scram-sha-256\n`).join(''));
  }
  const start = () =>
    exec('pg_ctl', ['start', '-w', '-t', '60', '-D', dataDir, '-l', path.join(dataDir, 'server.log'), '-o', `-p ${port} -k ${dataDir} -c listen_addresses=${listen.join(',')} -c max_connections=300 -c fsync=off`]);
  const stopWith = (mode: 'fast' | 'immediate') => exec('pg_ctl', ['stop', '-w', '-t', '60', '-m', mode, '-D', dataDir]).then(() => {});
  await start();
  // A run that dies without stopping the cluster must not leave a server behind.
  const stopOnExit = () => {
    try {
      execFileSync(...user.wrap(bin('pg_ctl'), ['stop', '-m', 'immediate', '-D', dataDir]), { stdio: 'ignore' });
    } catch {
      // already stopped
    }
  };
  process.once('exit', stopOnExit);
  const [stopCmd, stopArgs] = user.wrap(bin('pg_ctl'), ['stop', '-m', 'immediate', '-D', dataDir]);
  const cancelReaper = onParentDeath([stopCmd, ...stopArgs].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ') + ' >/dev/null 2>&1');
  return {
    host: listen[0]!,
    port,
    user: 'postgres',
    password,
    dataDir,
    url: (database) => `postgres://postgres:${password}@${listen[0]!}:${port}/${database}`,
    restart: async (downMs = 3000) => {
      await stopWith('immediate');
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    stop: async () => {
      process.removeListener('exit', stopOnExit);
      cancelReaper();
      await stopWith('fast');
    },
  };
}

/** An existing server named by an admin URL (`postgres://user:pass@host:port/db`). */
export function existingPostgres(adminUrl: string): PostgresServer {
  const url = new URL(adminUrl);
  const server = { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  return {
    ...server,
    url: (database) => {
      const u = new URL(adminUrl);
      u.pathname = `/${database}`;
      return u.toString();
    },
  };
}

/** Creates database `name` on `server` unless it exists (e.g. the jobs ledger beside Temporal's). */
export async function ensureDatabase(server: PostgresServer, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new ClusterSetupError(`database name ${JSON.stringify(name)} must be lower-case letters, digits and underscores`);
  const client = new pg.Client({ connectionString: server.url('postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return server.url(name);
}
