// Starting `npm start` (dist/dev/start.js) from a test on ports the test picked free: a port free
// when picked may be some other process's by the time the start binds it (a loaded CI run once
// found METRICS_PORT taken so), so a start refused for a port in use is made again on new ones.
import path from 'node:path';
import { repoRoot } from './env';
import { freePort, startProcess, type Started } from './processes';

/** The port settings of npm start a test picks. */
export type DevPortName = 'DEV_SERVER_PORT' | 'DEV_SERVER_UI_PORT' | 'DEV_SERVER_HTTP_PORT' | 'METRICS_PORT' | 'CONSOLE_PORT';

/** How many starts refused for a port in use before the test fails: each takes new ports. */
const startsOnNewPorts = 3;

/**
 * Starts npm start with `env` and waits for its banner's last line. Before each start, the named
 * port settings get free ports, written into `env`, so the test reads the ports the running system
 * has from it. A start that exits naming a port in use is made again on new ports, up to 3 times.
 */
export async function startOnFreePorts(env: NodeJS.ProcessEnv, ports: readonly DevPortName[], timeoutMs = 120_000): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    for (const name of ports) env[name] = String(await freePort());
    const system = startProcess(process.execPath, [path.join(repoRoot, 'dist/dev/start.js')], env, repoRoot);
    try {
      await system.waitFor('Stop: ', timeoutMs);
      return system;
    } catch (err) {
      const exited = system.child.exitCode !== null;
      if (!exited || attempt >= startsOnNewPorts || !/is already in use/.test(system.output())) throw err;
      console.log(`      npm start found a port taken (${system.output().match(/[A-Z_]+: [^\n]*already in use/)?.[0] ?? 'in use'}); starting again on new ports`);
    }
  }
}
