import { readFileSync } from 'node:fs';
import path from 'node:path';
import { versions } from './versions';

/** The SDK names its downloads after itself: `temporal-sdk-typescript-<version>`. */
const sdkVersion = (JSON.parse(readFileSync(require.resolve('@temporalio/testing/package.json'), 'utf8')) as { version: string }).version;
const sdkTag = `sdk-typescript-${sdkVersion}`;

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
  /** The CLI as the SDK's download names it. */
  sdkDownloadedCli: path.join(cacheDir, 'sdk-download', `temporal-${sdkTag}`),
  /** Folder of the native cluster's server build: the binaries below and `schema/` (PostgreSQL v12). */
  temporalServerDir: path.join(cacheDir, 'temporal-server', versions.temporalServer),
  /** The Temporal server (`go install …/cmd/server`), named as in the server image. */
  temporalServer: path.join(cacheDir, 'temporal-server', versions.temporalServer, 'temporal-server'),
  /** The schema tool (`go install …/cmd/tools/sql`), named as in the admin-tools image. */
  temporalSqlTool: path.join(cacheDir, 'temporal-server', versions.temporalServer, 'temporal-sql-tool'),
  /** The module's `schema/postgresql/v12`, copied out of the Go module cache. */
  temporalSchema: path.join(cacheDir, 'temporal-server', versions.temporalServer, 'schema'),
  /** Folder of the UI server build: `ui-server` and the module's `config/`. */
  temporalUiDir: path.join(cacheDir, 'temporal-ui-server', versions.temporalUi),
  /** Folder of the Jaeger build. */
  jaegerDir: path.join(cacheDir, 'jaeger', versions.jaeger),
  /** The Jaeger v2 binary (`go install …/cmd/jaeger`). */
  jaeger: path.join(cacheDir, 'jaeger', versions.jaeger, 'jaeger'),
  /** The test server as the SDK's download names it. */
  sdkDownloadedTestServer: path.join(cacheDir, 'sdk-download', `temporal-test-server-${sdkTag}`),
});
