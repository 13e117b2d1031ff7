import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../shared/config';
import { describeError } from '../shared/errors';
import { waitForFrontend } from '../shared/wait-for-frontend';
import { isListening } from '../shared/net';
import { devServerDynamicConfigArgs } from '../shared/dev-server-config';
import { customSearchAttributes } from '../shared/search-attributes';
import { forgetDevServer, guardDevServer, recordDevServer, stopLeftoverDevServer } from './leftover-dev-server';
import { devServerTuningArgs } from '../worker/tuning';
import { followFile } from './follow-file';

/** A running `temporal server start-dev`. */
export interface DevServer {
  /** gRPC address, `host:port`. */
  address: string;
  /** HTTP API address, `host:port` (TEMPORAL_HTTP_ADDRESS: where jobctl reads job records). */
  httpAddress: string;
  /** Web UI address. */
  uiUrl: string;
  /**
   * Stops the server (SIGTERM, then SIGKILL after `graceMs`) and waits for it to exit.
   * @defaultValue graceMs 10000
   */
  stop: (graceMs?: number) => Promise<void>;
  /** The server's process ID (for its CPU and memory in `npm run bench`). */
  pid?: number;
}

/**
 * Starts the Temporal dev server from the `temporal` CLI, persisting to `<dataDir>/temporal.db` so
 * jobs survive a restart, and waits until it answers.
 */
export async function startDevServer(
  cliPath: string,
  config: Config,
  readyTimeoutMs = 60_000,
  log: (line: string) => void = () => {},
  /** The codec server the Web UI decodes payloads through, when payloads are encrypted. */
  codecEndpoint?: string,
): Promise<DevServer> {
  await mkdir(config.dataDir, { recursive: true });
  const address = `${config.devServerIp}:${config.devServerPort}`;
  const dbFile = path.join(config.dataDir, 'temporal.db');
  const leftover = await stopLeftoverDevServer(config.dataDir, dbFile);
  if (leftover !== undefined) log(`stopped the dev server (pid ${leftover}) that an earlier, killed npm start left running on ${dbFile}`);
  // Otherwise the readiness check below could find some other server and call it ours.
  for (const [port, env] of [[config.devServerPort, 'DEV_SERVER_PORT'], [config.devServerHttpPort, 'DEV_SERVER_HTTP_PORT'], [config.devServerUiPort, 'DEV_SERVER_UI_PORT']] as const) {
    if (await isListening(config.devServerIp, port)) {
      throw new Error(
        `${config.devServerIp}:${port} is already in use (another Temporal dev server?). Stop it, choose another ${env}, or set TEMPORAL_ADDRESS to use that server.`,
      );
    }
  }
  const args = [
    'server', 'start-dev',
    '--ip', config.devServerIp,
    '--port', String(config.devServerPort),
    '--ui-port', String(config.devServerUiPort),
    // The HTTP API, where jobctl reads job records without loading the gRPC client (TEMPORAL_HTTP_ADDRESS).
    '--http-port', String(config.devServerHttpPort),
    '--db-filename', dbFile,
    '--namespace', config.namespace,
    '--log-level', 'error',
    ...devServerDynamicConfigArgs(),
    // WAL journal, eager start and dispatch: the trade-offs are in tuning.ts.
    ...devServerTuningArgs(),
    ...Object.entries(customSearchAttributes).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]),
    ...(codecEndpoint ? ['--ui-codec-endpoint', codecEndpoint] : []),
  ];
  for (let attempt = 1; ; attempt++) {
    const started = await launch(cliPath, args, config.dataDir, dbFile, address, readyTimeoutMs);
    if ('stop' in started) return { address, httpAddress: `${config.devServerIp}:${config.devServerHttpPort}`, uiUrl: `http://${config.devServerIp}:${config.devServerUiPort}`, ...started };
    // The CLI finds ports of its own free (history, matching, metrics) and binds them a moment
    // later: on a busy machine another process can take one between the two, and the server exits
    // at once. Ours were checked above; its own are chosen afresh by a new start.
    if (attempt >= devServerStarts || !portTaken(started.stderr)) throw started.error;
    log(`the Temporal dev server exited before it was ready (a port it chose was taken meanwhile); starting it again (${attempt + 1} of ${devServerStarts})`);
  }
}

/** Starts of the dev server tried when it exits because a port it chose itself was taken. */
const devServerStarts = 3;

/** Whether the dev server's last words say that a port was taken. */
export function portTaken(stderr: string): boolean {
  return /address already in use|bind: /i.test(stderr);
}

type Launched = Pick<DevServer, 'stop' | 'pid'> | { error: Error; stderr: string };

async function launch(cliPath: string, args: string[], dataDir: string, dbFile: string, address: string, readyTimeoutMs: number): Promise<Launched> {
  // Its own process group: a terminal's Ctrl-C reaches only us, so the worker drains before the server stops.
  // Its stdout is only a banner (with a metrics address that is not the worker's); errors go to
  // stderr, a file in the data directory (not a pipe: src/dev/follow-file.ts), passed on to ours
  // and kept (its tail) to tell a port taken from other failures.
  const logFile = path.join(dataDir, 'dev-server.log');
  const errors = openSync(logFile, 'w');
  const child = spawn(cliPath, args, { stdio: ['ignore', 'ignore', errors], detached: true });
  closeSync(errors);
  let stderr = '';
  const followed = followFile(logFile, (chunk) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString('utf8')).slice(-8192);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      followed.stop();
      resolve(code);
    }),
  );
  if (child.pid !== undefined) await recordDevServer(dataDir, child.pid);
  const dismissGuard = child.pid !== undefined ? guardDevServer(child.pid, dbFile, dataDir) : () => {};
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async (graceMs = 10_000) => {
    process.removeListener('exit', killOnExit);
    dismissGuard();
    await terminate(child, exited, graceMs);
    await forgetDevServer(dataDir);
  };
  try {
    await waitUntilReady(address, exited, readyTimeoutMs);
  } catch (err) {
    await stop();
    return { error: err instanceof Error ? err : new Error(String(err)), stderr };
  }
  return { stop, pid: child.pid };
}

async function waitUntilReady(address: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const wait = await waitForFrontend(address, { timeoutMs, exited });
  if (wait.answered) return;
  if ('lastError' in wait) throw new Error(`the Temporal dev server did not answer at ${address} within ${timeoutMs} ms: ${describeError(wait.lastError)}`);
  throw new Error(`the Temporal dev server exited with code ${String(wait.exit)} before it was ready`);
}

async function terminate(child: ChildProcess, exited: Promise<number | null>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
