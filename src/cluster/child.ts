import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { isListening } from '../shared/net';
import { onParentDeath } from './reaper';

/** A process of the native cluster: its output goes to a log file, and it dies with us. */
export interface ClusterChild {
  /** e.g. `node-1`, `ui`, `worker-2`. */
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop: (graceMs?: number) => Promise<void>;
  /** SIGKILL, as a crash would; resolves once it is gone. */
  kill: () => Promise<void>;
}

/** Spawns `cmd` with its output appended to `logFile`. */
export function spawnLogged(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, cwd?: string): ClusterChild {
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      log.end();
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', () => resolve('spawn-error'));
  });
  // A cluster left behind by a crashed test run would hold ports and the database.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const cancelReaper = child.pid === undefined ? () => {} : onParentDeath(`kill -9 ${child.pid}`, child.pid);
  void exited.then(() => {
    process.removeListener('exit', killOnExit);
    cancelReaper();
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (graceMs = 10_000) => {
    if (gone()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const kill = async () => {
    if (gone()) return;
    child.kill('SIGKILL');
    await exited;
  };
  return { name, child, exited, stop, kill };
}

/** Waits until `host:port` accepts connections; fails early when `child` exits first. */
export async function waitForPort(child: ClusterChild, host: string, port: number, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exit: number | string | undefined;
  void child.exited.then((code) => (exit = code));
  while (Date.now() < deadline) {
    if (exit !== undefined) throw new Error(`${child.name} exited (${String(exit)}) before ${host}:${port} answered; see ${logFile}`);
    if (await isListening(host, port)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${child.name}: ${host}:${port} did not answer within ${timeoutMs / 1000}s; see ${logFile}`);
}
