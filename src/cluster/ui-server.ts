import path from 'node:path';
import { spawnLogged, waitForPort, type ClusterChild } from './child';

/** The cluster's Web UI: the standalone Temporal UI server, with the `temporalio/ui` image's config. */
export interface UiServer {
  url: string;
  process: ClusterChild;
}

/** Starts `ui-server --root <its config> --env docker start` against `temporalAddress`. */
export async function startUiServer(uiServer: string, root: string, temporalAddress: string, port: number, logDir: string): Promise<UiServer> {
  const logFile = path.join(logDir, 'ui.log');
  const env = { ...process.env, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_UI_PORT: String(port), TEMPORAL_CSRF_COOKIE_INSECURE: 'true' };
  const child = spawnLogged('ui', uiServer, ['--root', root, '--env', 'docker', 'start'], env, logFile);
  await waitForPort(child, '127.0.0.1', port, 60_000, logFile);
  return { url: `http://127.0.0.1:${port}`, process: child };
}
