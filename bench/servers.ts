import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/shared/config';
import { startDevServer } from '../src/dev/dev-server';
import { freePort } from '../src/shared/net';
import { waitForFrontend } from '../src/shared/wait-for-frontend';

/** Which Temporal server a scenario runs on. */
export type ServerKind =
  /** The dev server exactly as `npm start` starts it (src/dev/dev-server.ts: WAL, dynamic config). */
  | 'npm-start'
  /** `temporal server start-dev --db-filename <file>` and nothing else: what a user without this project runs. */
  | 'stock';

/** A server a scenario runs against. */
export interface BenchServer {
  address: string;
  /** The HTTP API's `host:port`, on the server `npm start` configures. */
  httpAddress?: string;
  /** Its process, when the bench started it (for CPU). */
  pid?: number;
  stop(): Promise<void>;
}

/**
 * Starts a fresh server of that kind with its database in `dir`. Its ports are found free just
 * before, and the CLI picks more of its own (history, matching, metrics): on a busy machine one can
 * be taken meanwhile and the server exits at once. It is then started again on other ports, up to
 * three times: a start that fails so has measured nothing.
 */
export async function startBenchServer(kind: ServerKind, cliPath: string, dir: string): Promise<BenchServer> {
  for (let tries = 1; ; tries++) {
    try {
      return await startOnce(kind, cliPath, dir);
    } catch (err) {
      if (tries >= 3 || !/exited with code|exited before/.test(String(err))) throw err;
    }
  }
}

async function startOnce(kind: ServerKind, cliPath: string, dir: string): Promise<BenchServer> {
  const [port, uiPort] = [await freePort(), await freePort()];
  if (kind === 'npm-start') {
    const config = loadConfig({ dataDir: dir, devServerPort: port, devServerUiPort: uiPort, devServerHttpPort: await freePort(), temporalAddress: undefined }, {});
    const server = await startDevServer(cliPath, config);
    return { address: server.address, httpAddress: server.httpAddress, pid: server.pid, stop: server.stop };
  }
  const address = `127.0.0.1:${port}`;
  // A stock server logs at its default level; its log goes to a file, as a user's terminal would take it.
  const log = openSync(path.join(dir, 'server.log'), 'a');
  const child = spawn(cliPath, ['server', 'start-dev', '--db-filename', path.join(dir, 'temporal.db'), '--port', String(port), '--ui-port', String(uiPort)], {
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const exit = exited.then((code) => {
      throw new Error(`the Temporal dev server exited with code ${String(code)} before it answered at ${address}`);
    });
    exit.catch(() => undefined);
    await Promise.race([waitForServer(address, 60_000), exit]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, pid: child.pid, stop };
}

/** Waits until a Temporal frontend answers at `address`. */
export async function waitForServer(address: string, timeoutMs: number): Promise<void> {
  const wait = await waitForFrontend(address, { timeoutMs });
  if (!wait.answered) throw new Error(`no Temporal server answered at ${address}: ${String('lastError' in wait ? wait.lastError : wait.exit)}`);
}
