import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

// The dev server runs in its own process group (so Ctrl-C reaches the worker first), so a `npm
// start` killed with SIGKILL leaves it running, holding the ports and the SQLite file. A pid file
// beside the database lets the next start recognise that server as its own and stop it.

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
