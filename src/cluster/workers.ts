import { freePortOn } from './ports';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnLogged, type ClusterChild } from './child';
import { repoRoot } from './scripts';

/** One of this project's worker processes (`node dist/worker/main.js`), run against one node. */
export interface WorkerProcess {
  name: string;
  /** The frontend it connects to. */
  address: string;
  logFile: string;
  /** The running process; replaced by `start` after a kill or stop. */
  process: () => ClusterChild;
  /** (Re)starts it and waits until it polls (`worker:started` in its log). */
  start: () => Promise<void>;
  /** SIGKILL, as a crashed machine would: its in-flight activities time out and run elsewhere. */
  kill: () => Promise<void>;
  /** SIGTERM: it drains (SHUTDOWN_GRACE_TIME), then exits. */
  stop: () => Promise<void>;
}

/**
 * Starts a worker process with `env` (DATABASE_URL, TEMPORAL_TASK_QUEUE, OUTBOX_DIR, …) plus
 * TEMPORAL_ADDRESS = `address`.
 */
export async function startWorkerProcess(name: string, address: string, env: NodeJS.ProcessEnv, logDir: string, readyTimeoutMs = 120_000): Promise<WorkerProcess> {
  const logFile = path.join(logDir, `${name}.log`);
  const main = path.join(repoRoot, 'dist', 'worker', 'main.js');
  let current: ClusterChild | undefined;
  const start = async (): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        return await startOnce();
      } catch (err) {
        // A port found free can be taken by another server before the worker binds it: with a
        // port of our choosing, that is a reason to choose again, not a failure of the worker.
        const chosenByUs = env.METRICS_PORT === undefined && process.env.METRICS_PORT === undefined;
        if (!chosenByUs || tries >= 3 || !/METRICS_PORT: \S+ is already in use/.test(String(err))) throw err;
      }
    }
  };
  const startOnce = async () => {
    const before = (await readFile(logFile, 'utf8').catch(() => '')).length;
    const merged = { ...process.env, ...env };
    // Readiness is read from the `worker:started` line, which is logged at info.
    const level = merged.LOG_LEVEL === 'trace' || merged.LOG_LEVEL === 'debug' ? merged.LOG_LEVEL : 'info';
    // Several workers share this machine: each serves its metrics on a port of its own, free on
    // every interface (the worker binds METRICS_HOST, 0.0.0.0 by default, and nodes listen on
    // 127.0.0.x addresses of their own).
    const metricsPort = merged.METRICS_PORT ?? String(await freePortOn('0.0.0.0'));
    current = spawnLogged(name, process.execPath, [main], { ...merged, LOG_LEVEL: level, TEMPORAL_ADDRESS: address, METRICS_PORT: metricsPort }, logFile, repoRoot);
    let exit: number | string | undefined;
    void current.exited.then((code) => (exit = code));
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      const log = (await readFile(logFile, 'utf8').catch(() => '')).slice(before);
      if (log.includes('worker:started')) return;
      // The log may be removed with a test's temporary folder: its last lines go into the error.
      if (exit !== undefined) throw new Error(`${name} exited (${String(exit)}) before it started polling; see ${logFile}:\n${log.trim().split('\n').slice(-5).join('\n')}`);
      if (Date.now() > deadline) throw new Error(`${name} did not start polling within ${readyTimeoutMs / 1000}s; see ${logFile}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  await start();
  return { name, address, logFile, process: () => current!, start, kill: async () => current?.kill(), stop: async () => current?.stop(45_000) };
}
