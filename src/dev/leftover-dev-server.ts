import { execFile, spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

// The dev server runs in its own process group (so Ctrl-C reaches the worker first), so a `npm
// start` killed with SIGKILL would leave it running, holding the ports and the SQLite file. A guard
// process stops it as soon as its owner is gone; should the guard be gone too, a pid file beside the
// database lets the next start recognise that server as its own and stop it.

/**
 * The guard: a shell loop in the server's own session that waits while both the owner and the
 * server live, and if the owner died first, stops the server (SIGTERM, SIGKILL 10s later), after
 * checking that the pid still runs this database's `start-dev` (so a reused pid is never killed).
 */
const guardScript = `
owner=$1 server=$2 db=$3 pidfile=$4
ours() { case "$(ps -o command= -p "$server" 2>/dev/null)" in *start-dev*"$db"*) return 0;; esac; return 1; }
while kill -0 "$owner" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 1; done
kill -0 "$owner" 2>/dev/null && exit 0
ours && kill "$server"
i=0; while [ $i -lt 10 ] && ours; do sleep 1; i=$((i+1)); done
ours && kill -9 "$server"
# The server is gone: forget it, unless a newer npm start has written its own server there since.
[ "$(cut -d' ' -f1 "$pidfile" 2>/dev/null)" = "$server" ] && rm -f "$pidfile"
exit 0
`;

/**
 * Starts the guard of a dev server owned by this process; returns how to dismiss it (on a normal
 * stop). It outlives a SIGKILL of this process because it runs in its own session.
 */
export function guardDevServer(serverPid: number, dbFile: string, dataDir: string): () => void {
  const args = [String(process.pid), String(serverPid), dbFile, pidFile(dataDir)];
  const guard = spawn('/bin/sh', ['-c', guardScript, 'durable-jobs-dev-server-guard', ...args], { stdio: 'ignore', detached: true });
  guard.on('error', () => undefined);
  guard.unref();
  return () => {
    if (guard.exitCode === null && guard.signalCode === null) guard.kill();
  };
}

/** The pid file of the dev server that uses `dataDir`. */
export function pidFile(dataDir: string): string {
  return path.join(dataDir, 'dev-server.pid');
}

/** Records the dev server's pid, and ours as its owner, for the next start. */
export async function recordDevServer(dataDir: string, pid: number): Promise<void> {
  await writeFile(pidFile(dataDir), `${pid} ${process.pid}\n`);
}

/** Forgets the recorded dev server (it stopped). */
export async function forgetDevServer(dataDir: string): Promise<void> {
  await rm(pidFile(dataDir), { force: true });
}

/**
 * Stops a dev server that an earlier `npm start` on the same data directory left running, if
 * there is one: the pid file names it and its owner, the owner must be gone (a running `npm start`
 * keeps its server), and the server's command line must name this directory's database (so a
 * reused pid is never killed). Returns its pid when it stopped one.
 */
export async function stopLeftoverDevServer(dataDir: string, dbFile: string, timeoutMs = 10_000): Promise<number | undefined> {
  const [pid, owner] = (await readFile(pidFile(dataDir), 'utf8').catch(() => '')).trim().split(' ').map(Number);
  if (!Number.isInteger(pid) || pid! <= 0) return undefined;
  if (owner !== undefined && isAlive(owner)) return undefined;
  const command = await promisify(execFile)('ps', ['-o', 'command=', '-p', String(pid!)]).then((r) => r.stdout, () => '');
  if (!command.includes('start-dev') || !command.includes(dbFile)) {
    await forgetDevServer(dataDir);
    return undefined;
  }
  const server = pid!;
  process.kill(server, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(server) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(server)) process.kill(server, 'SIGKILL');
  while (isAlive(server)) await new Promise((r) => setTimeout(r, 50));
  await forgetDevServer(dataDir);
  return server;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
