import path from 'node:path';
import { versions } from './versions';

/** Where each provisioned binary lives inside the cache directory. */
export const cachePaths = (cacheDir: string) => ({
  /** The `temporal` CLI that `go install` built. */
  temporalCli: path.join(cacheDir, 'temporal-cli', versions.temporalCli, 'temporal'),
  /** Folder of the Maven-resolved test server: `lib/*.jar` and the wrapper. */
  testServerDir: path.join(cacheDir, 'test-server', versions.testServer.version),
  /** The `exec java …` wrapper the SDK runs as `<path> <port>`. */
  testServer: path.join(cacheDir, 'test-server', versions.testServer.version, 'temporal-test-server'),
  /** Where the SDK's own `cached-download` puts what it downloads. */
  sdkDownloads: path.join(cacheDir, 'sdk-download'),
});
