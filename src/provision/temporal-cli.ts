import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { cachePaths } from './cache';
import { buildWithHeartbeat } from './heartbeat';
import { assertExecutable, assertReachable, explicitPath, firstExecutable, firstWorking, run, sdkDownloadUrl, type ProvisionOptions, type Provided, type Route } from './routes';
import { versions } from './versions';

/** Settings the CLI provisioning reads. */
export interface CliProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_CLI_PATH, if set. */
  temporalCliPath?: string;
}

/**
 * Finds or provisions the `temporal` CLI, in this order: TEMPORAL_CLI_PATH, the cache, the SDK's
 * own download, then `go install` from the Go module proxy into the cache.
 */
export async function provisionTemporalCli(options: CliProvisionOptions): Promise<Provided<string>> {
  const paths = cachePaths(options.cacheDir);
  const log = options.log ?? (() => {});
  const routes: Route<string>[] = [
    { name: 'TEMPORAL_CLI_PATH', attempt: () => explicitPath(options.temporalCliPath), decisive: true },
    {
      name: `cache (${paths.temporalCli}, ${paths.sdkDownloadedCli})`,
      attempt: () => firstExecutable([paths.temporalCli, paths.sdkDownloadedCli]),
    },
    { name: 'SDK download (cached-download)', attempt: () => downloadWithSdk(paths.sdkDownloads, paths.sdkDownloadedCli) },
    {
      name: `go install ${versions.temporalCliModule}@v${versions.temporalCli}`,
      attempt: async () => {
        log(`building the Temporal CLI v${versions.temporalCli} with go install (a cold build takes several minutes)…`, 'info');
        return buildWithHeartbeat('temporal', `go install ${versions.temporalCliModule}@v${versions.temporalCli}`, log, () => goInstall(paths.temporalCli));
      },
    },
  ];
  return firstWorking('Temporal CLI', routes, log);
}

async function downloadWithSdk(downloadDir: string, expected: string): Promise<string> {
  await assertReachable(sdkDownloadUrl);
  await mkdir(downloadDir, { recursive: true });
  // Loaded only on this route: the other routes, and a worker's `npm start`, never need the test package.
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download', downloadDir } } });
  await env.teardown();
  await assertExecutable(expected);
  return expected;
}

async function goInstall(target: string): Promise<string> {
  const parent = path.dirname(target);
  await mkdir(parent, { recursive: true });
  // Build into a scratch dir, then rename: an interrupted build never leaves a half binary in the cache.
  const scratch = await mkdtemp(path.join(parent, '.build-'));
  try {
    await run('go', ['install', `${versions.temporalCliModule}@v${versions.temporalCli}`], {
      env: { ...process.env, GOBIN: scratch, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
    });
    await rename(path.join(scratch, 'temporal'), target);
    return target;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
