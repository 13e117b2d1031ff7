import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TestWorkflowEnvironment, type ClientOptionsForTestEnv } from '@temporalio/testing';
import { cachePaths } from './cache';
import { assertReachable, explicitPath, firstExecutable, firstWorking, run, sdkDownloadUrl, type ProvisionOptions, type Provided, type Route } from './routes';
import { versions } from './versions';

/** Settings the test-server provisioning reads. */
export interface TestServerProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_TEST_SERVER_PATH, if set. */
  testServerPath?: string;
  /** The port it listens on. @defaultValue a free one */
  port?: number;
  /** The environment's client: its data converter and interceptors. @defaultValue the SDK's */
  client?: ClientOptionsForTestEnv;
}

/**
 * Starts a time-skipping test environment, trying in order: TEMPORAL_TEST_SERVER_PATH, the cache,
 * the SDK's own download, then the Java test server resolved from Maven into the cache.
 */
export async function createTimeSkippingEnv(options: TestServerProvisionOptions): Promise<Provided<TestWorkflowEnvironment>> {
  const paths = cachePaths(options.cacheDir);
  const log = options.log ?? (() => {});
  const port = options.port === undefined ? {} : { port: options.port };
  // A fixed port is taken once: a retry would only find it in use.
  const startAt = (file: string) => startWithRetries(() => TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: file }, ...port }, client: options.client }), options.port === undefined ? 3 : 1);
  const routes: Route<TestWorkflowEnvironment>[] = [
    { name: 'TEMPORAL_TEST_SERVER_PATH', attempt: async () => startAt(await explicitPath(options.testServerPath)), decisive: true },
    {
      name: `cache (${paths.testServer}, ${paths.sdkDownloadedTestServer})`,
      attempt: async () => startAt(await firstExecutable([paths.testServer, paths.sdkDownloadedTestServer])),
    },
    {
      name: 'SDK download (cached-download)',
      attempt: async () => {
        await assertReachable(sdkDownloadUrl);
        return TestWorkflowEnvironment.createTimeSkipping({
          server: { executable: { type: 'cached-download', downloadDir: paths.sdkDownloads }, ...port },
          client: options.client,
        });
      },
    },
    {
      name: `Maven ${versions.testServer.group}:${versions.testServer.artifact}:${versions.testServer.version}`,
      attempt: async () => {
        log(`resolving the Java test server ${versions.testServer.version} from Maven…`, 'info');
        return startAt(await resolveFromMaven(paths.testServerDir));
      },
    },
  ];
  return firstWorking('time-skipping test server', routes, log);
}

function pom(): string {
  const dep = (d: { group: string; artifact: string; version: string }) =>
    `<dependency><groupId>${d.group}</groupId><artifactId>${d.artifact}</artifactId><version>${d.version}</version></dependency>`;
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.durable-jobs</groupId>
  <artifactId>test-server-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    ${dep(versions.testServer)}
    ${dep(versions.slf4jNop)}
  </dependencies>
</project>
`;
}

function wrapper(): string {
  return `#!/bin/sh
# Runs the Java time-skipping test server as the SDK expects: <this file> <port>.
DIR="$(cd "$(dirname "$0")" && pwd)"
if [ -n "$JAVA_HOME" ]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
exec "$JAVA" -cp "$DIR/lib/*" ${versions.testServerMainClass} "$@"
`;
}

async function resolveFromMaven(targetDir: string): Promise<string> {
  await run('java', ['-version']);
  const parent = path.dirname(targetDir);
  await mkdir(parent, { recursive: true });
  // Resolve into a scratch dir, then rename, so that the cache never holds half a classpath.
  const scratch = await mkdtemp(path.join(parent, '.resolve-'));
  try {
    await writeFile(path.join(scratch, 'pom.xml'), pom());
    await run('mvn', ['-B', '-q', 'dependency:copy-dependencies', '-DoutputDirectory=lib', '-DincludeScope=runtime'], { cwd: scratch });
    const exe = path.join(scratch, 'temporal-test-server');
    await writeFile(exe, wrapper());
    await chmod(exe, 0o755);
    await rm(targetDir, { recursive: true, force: true });
    await rename(scratch, targetDir);
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  return path.join(targetDir, 'temporal-test-server');
}

/**
 * The SDK gives an ephemeral server 5 seconds to answer, which a JVM on a loaded machine can miss;
 * the next start usually finds its classes in the page cache. Other failures are not retried.
 */
async function startWithRetries<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= attempts || !/did not start within/.test(err instanceof Error ? err.message : String(err))) throw err;
    }
  }
}
