import { spawn } from 'node:child_process';
import { provisionTemporalCli } from '../../src/provision/temporal-cli';
import { loadConfig } from '../../src/shared/config';
import { waitForFrontend } from '../../src/shared/wait-for-frontend';
import { freePort } from './processes';

/** A Temporal server like one a user brings: nothing of ours registered on it. */
export interface BareTemporal {
  /** `host:port` of its frontend. */
  address: string;
  /** The namespace it was started with (`default` unless one was asked for). */
  namespace: string;
  /** Stops it (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. */
  stop: () => Promise<void>;
}

/**
 * Starts `temporal server start-dev` from the provisioned CLI with no `--search-attribute` and no
 * dynamic config of ours: in memory, headless, on free loopback ports, with `namespace` created
 * (when given). `extraArgs` go on its command line as they are (a test's own dynamic config).
 */
export async function startBareTemporal(namespace?: string, extraArgs: readonly string[] = []): Promise<BareTemporal> {
  const config = loadConfig();
  const { value: cli } = await provisionTemporalCli({ cacheDir: config.cacheDir, temporalCliPath: config.temporalCliPath });
  const [port, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const args = ['server', 'start-dev', '--headless', '--log-level', 'error', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(httpPort), '--metrics-port', String(metricsPort), ...(namespace ? ['--namespace', namespace] : []), ...extraArgs];
  const child = spawn(cli, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const wait = await waitForFrontend(address, { timeoutMs: 60_000, exited });
  if (!wait.answered) {
    await stop();
    throw new Error(`the bare Temporal dev server at ${address} did not start: ${'exit' in wait && wait.exit !== undefined ? `exit ${String(wait.exit)}` : 'no answer in 60 s'}\n${stderr}`);
  }
  return { address, namespace: namespace ?? 'default', stop };
}
