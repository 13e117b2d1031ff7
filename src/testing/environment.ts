import { TestWorkflowEnvironment, type ClientOptionsForTestEnv } from '@temporalio/testing';
import { registerSearchAttributes } from '../shared/search-attributes';
import { jobTypeSearchAttribute } from '../catalog/job-type-attribute';
import { provisionTemporalCli } from '../provision/temporal-cli';
import type { ProvisionLog } from '../provision/routes';
import { createTimeSkippingEnv } from '../provision/test-server';
import { loadConfig } from '../shared/config';
import { devServerDynamicConfigArgs } from '../shared/dev-server-config';

/** Where the kit finds the Temporal binaries: as `npm run provision` does, cached, with the same routes and errors. */
export interface TestEnvOptions {
  /** Cache of the provisioned binaries. @defaultValue DURABLE_JOBS_CACHE_DIR, else `~/.cache/durable-jobs` */
  cacheDir?: string;
  /** An existing time-skipping test server. @defaultValue TEMPORAL_TEST_SERVER_PATH, else provisioned */
  testServerPath?: string;
  /** An existing `temporal` CLI. @defaultValue TEMPORAL_CLI_PATH, else provisioned */
  temporalCliPath?: string;
  /** Where provisioning reports what it does (a cold cache builds or downloads the binaries). @defaultValue silent */
  log?: ProvisionLog;
  /** The dev server's HTTP API port (jobctl's reads use it through TEMPORAL_HTTP_ADDRESS); the time-skipping server has none. @defaultValue none passed (the CLI's own default) */
  httpPort?: number;
  /**
   * The server's gRPC port, e.g. one a firewall rule allows. The dev server listens on loopback
   * only; Temporal's time-skipping test server (Java) listens on every interface and has no
   * setting to narrow it. @defaultValue a free port
   */
  port?: number;
  /** The environment's client options (a data converter that encrypts, tracing interceptors); the kit sets them as the worker would. @defaultValue the SDK's */
  client?: ClientOptionsForTestEnv;
}

function settings(options: TestEnvOptions): { cacheDir: string; testServerPath?: string; temporalCliPath?: string } {
  const config = loadConfig();
  return {
    cacheDir: options.cacheDir ?? config.cacheDir,
    testServerPath: options.testServerPath ?? config.testServerPath,
    temporalCliPath: options.temporalCliPath ?? config.temporalCliPath,
  };
}

/**
 * Starts Temporal's time-skipping test server (timers and retry delays pass at once) with the
 * `JobType` search attribute registered, finding or provisioning the server as `npm test` does,
 * so it works where the SDK's own download is blocked.
 */
export async function startTimeSkippingEnv(options: TestEnvOptions = {}): Promise<TestWorkflowEnvironment> {
  const { cacheDir, testServerPath } = settings(options);
  const { value } = await createTimeSkippingEnv({ cacheDir, testServerPath, log: options.log, port: options.port, client: options.client });
  await registerSearchAttributes(value.connection, value.namespace ?? 'default');
  return value;
}

/**
 * Starts a real local dev server (the provisioned `temporal` CLI, in memory) with the `JobType`
 * search attribute, for tests that need the real server's behaviour: updates (the DLQ's redrive
 * and discard), visibility queries, priorities.
 */
export async function startDevServerEnv(options: TestEnvOptions = {}): Promise<TestWorkflowEnvironment> {
  const { cacheDir, temporalCliPath } = settings(options);
  const { value: cli } = await provisionTemporalCli({ cacheDir, temporalCliPath, log: options.log });
  return TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: cli }, ip: '127.0.0.1', ...(options.port === undefined ? {} : { port: options.port }), searchAttributes: [jobTypeSearchAttribute], extraArgs: ['--log-level', 'error', ...(options.httpPort ? ['--http-port', String(options.httpPort)] : []), ...devServerDynamicConfigArgs()] },
    client: options.client,
  });
}
