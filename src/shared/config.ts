import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { loadKeyRing } from './encryption-keys';
import { isHttpAddress } from './http-address';
import { defaultTaskQueue } from './config-env-names';
import { ConfigError, type FieldIssue } from './errors';
import { loadSettings, type SettingField, type SettingsOf, type SettingsOverrides } from './settings';

const port = z.coerce
  .number({ error: 'must be a port, a whole number from 1 to 65535' })
  .refine((n) => Number.isInteger(n) && n >= 1 && n <= 65535, 'must be a port, a whole number from 1 to 65535');
const portOrOffMessage = 'must be a port, a whole number from 1 to 65535, or 0 for none';
/** A port, or 0 for none (metrics off). */
const portOrOff = z.coerce
  .number({ error: portOrOffMessage })
  .refine((n) => Number.isInteger(n) && n >= 0 && n <= 65535, portOrOffMessage);
/** A comma-separated list of job types, e.g. `send-email,sync-data`; the worker checks them against its catalog. */
const jobTypeList = z
  .string()
  .transform((v) => v.split(',').map((t) => t.trim()).filter(Boolean))
  .pipe(z.array(z.string()).min(1, 'must name at least one job type').transform((types) => [...new Set(types)]));
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/**
 * Every setting, with the environment variable it is read from and its default.
 * Precedence: an explicit option > the environment variable > the default.
 */
const fields = {
  /** Temporal frontend `host:port`. Unset: `npm start` runs an embedded dev server. @defaultValue unset */
  temporalAddress: { env: 'TEMPORAL_ADDRESS', schema: z.string().min(1).optional() },
  /**
   * `host:port` of the Temporal frontend's HTTP API (the server's `frontend.rpc.httpPort`): jobctl
   * reads job records there without loading the gRPC client, and falls back to TEMPORAL_ADDRESS
   * when it does not answer. Plain HTTP only: with TLS, an API key or encryption keys, jobctl reads
   * over gRPC. @defaultValue the embedded dev server's, `<DEV_SERVER_IP>:<DEV_SERVER_HTTP_PORT>`, when TEMPORAL_ADDRESS is unset; else unset
   */
  temporalHttpAddress: { env: 'TEMPORAL_HTTP_ADDRESS', schema: z.string().refine(isHttpAddress, 'must be host:port with a port from 1 to 65535, e.g. 127.0.0.1:7243').optional() },
  /** Temporal namespace. @defaultValue 'default' */
  namespace: { env: 'TEMPORAL_NAMESPACE', schema: z.string().min(1).default('default') },
  /** Task queue the worker polls and jobs are started on. A stored contract. @defaultValue 'durable-jobs' */
  taskQueue: { env: 'TEMPORAL_TASK_QUEUE', schema: z.string().min(1).default(defaultTaskQueue) },
  /** Connect with TLS. @defaultValue false (true when an API key or client cert is given) */
  tls: { env: 'TEMPORAL_TLS', schema: bool.optional() },
  /** Client certificate (PEM file) for mTLS. @defaultValue unset */
  tlsCertPath: { env: 'TEMPORAL_TLS_CERT', schema: z.string().min(1).optional() },
  /** Client private key (PEM file) for mTLS. @defaultValue unset */
  tlsKeyPath: { env: 'TEMPORAL_TLS_KEY', schema: z.string().min(1).optional() },
  /** API key, e.g. for Temporal Cloud. @defaultValue unset */
  apiKey: { env: 'TEMPORAL_API_KEY', schema: z.string().min(1).optional(), secret: true },
  /** Interface the embedded dev server binds to. @defaultValue '127.0.0.1' */
  devServerIp: { env: 'DEV_SERVER_IP', schema: z.string().min(1).default('127.0.0.1') },
  /** gRPC port of the embedded dev server. @defaultValue 7233 */
  devServerPort: { env: 'DEV_SERVER_PORT', schema: port.default(7233) },
  /** HTTP API port of the embedded dev server (see TEMPORAL_HTTP_ADDRESS). @defaultValue 7243 */
  devServerHttpPort: { env: 'DEV_SERVER_HTTP_PORT', schema: port.default(7243) },
  /** Web UI port of the embedded dev server. @defaultValue 8233 */
  devServerUiPort: { env: 'DEV_SERVER_UI_PORT', schema: port.default(8233) },
  /** Directory for the dev server's SQLite file and the jobs database; catalogs keep their files under it too (the built-in outbox and reports). @defaultValue './.data' */
  dataDir: { env: 'DATA_DIR', schema: z.string().min(1).default('.data') },
  /**
   * Database for the jobs' side effects (ledger, accounts, synced records): `postgres://…` for
   * PostgreSQL, else a SQLite file path. @defaultValue '<DATA_DIR>/jobs.db' (SQLite)
   */
  databaseUrl: {
    env: 'DATABASE_URL',
    schema: z
      .string()
      .min(1)
      // Any other scheme would otherwise become a SQLite file named after the URL.
      .refine((v) => /^postgres(ql)?:\/\//.test(v) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(v), 'must be a postgres:// or postgresql:// URL, or a SQLite file path')
      .optional(),
  },
  /** Log level: trace, debug, info, warn or error. @defaultValue 'info' */
  logLevel: { env: 'LOG_LEVEL', schema: z.enum(['trace', 'debug', 'info', 'warn', 'error']).default('info') },
  /**
   * The job types a worker runs (`npm run worker -- --types send-email,sync-data`): it polls their
   * task queues. Types that share a queue are served together. @defaultValue every type of the worker's catalog
   */
  workerJobTypes: { env: 'WORKER_JOB_TYPES', flag: '--types', schema: jobTypeList.optional() },
  /** Log line format: `json` (one JSON object per line) or `pretty` (human-readable). @defaultValue 'pretty' when stdout is a terminal, else 'json' */
  logFormat: { env: 'LOG_FORMAT', schema: z.enum(['json', 'pretty']).optional() },
  /** Serve Prometheus metrics from the worker (`true`/`false`). @defaultValue true */
  metrics: { env: 'METRICS', schema: bool.default(true) },
  /** Interface the worker's metrics endpoint binds. @defaultValue '0.0.0.0' (all interfaces) */
  metricsHost: { env: 'METRICS_HOST', schema: z.string().min(1).default('0.0.0.0') },
  /** Port of the worker's metrics endpoint (`/metrics`); 0 turns metrics off, like METRICS=false. @defaultValue 9464 */
  metricsPort: { env: 'METRICS_PORT', schema: portOrOff.default(9464) },
  /** How often the worker samples the task queue's backlog and the DLQ sizes for the metrics. @defaultValue '15s' */
  metricsSampleInterval: { env: 'METRICS_SAMPLE_INTERVAL', schema: z.string().regex(/^\d+(ms|s|m)$/, 'must look like 500ms, 15s or 1m').default('15s') },
  /**
   * Run the job outbox's relay in the worker (`true`/`false`) when its catalog declares a database:
   * it starts the jobs that `enqueueInTransaction` committed. Several workers relay at once on
   * PostgreSQL, one at a time on SQLite. @defaultValue true
   */
  jobOutboxRelay: { env: 'JOB_OUTBOX_RELAY', schema: bool.default(true) },
  /** How long a job outbox row is kept once its job has started, then pruned. @defaultValue '24h' */
  jobOutboxRetention: { env: 'JOB_OUTBOX_RETENTION', schema: z.string().regex(/^\d+(ms|s|m|h|d)$/, 'must look like 30m, 24h or 7d').default('24h') },
  /** How long a stopping worker waits for in-flight activities before cancelling them. @defaultValue '30s' */
  shutdownGraceTime: { env: 'SHUTDOWN_GRACE_TIME', schema: z.string().regex(/^\d+(ms|s|m)$/, 'must look like 500ms, 30s or 2m').default('30s') },
  /** Cache for the Temporal binaries (CLI and test server), outside the repo. @defaultValue '$XDG_CACHE_HOME/durable-jobs' or '~/.cache/durable-jobs' */
  cacheDir: { env: 'DURABLE_JOBS_CACHE_DIR', schema: z.string().min(1).optional() },
  /** An existing `temporal` CLI binary to use instead of provisioning one. @defaultValue unset */
  temporalCliPath: { env: 'TEMPORAL_CLI_PATH', schema: z.string().min(1).optional() },
  /** An existing time-skipping test server executable to use instead of provisioning one. @defaultValue unset */
  testServerPath: { env: 'TEMPORAL_TEST_SERVER_PATH', schema: z.string().min(1).optional() },
  /**
   * Payload encryption keys, `<key-id>:<base64 32 bytes>` separated by commas; the last encrypts,
   * all decrypt. Set this or ENCRYPTION_KEY_FILE to encrypt payloads. @defaultValue unset (payloads in clear)
   */
  encryptionKeys: { env: 'ENCRYPTION_KEYS', schema: z.string().min(1).optional(), secret: true },
  /** A file of encryption keys, one `<key-id>:<base64>` per line, the last one current. @defaultValue unset */
  encryptionKeyFile: { env: 'ENCRYPTION_KEY_FILE', schema: z.string().min(1).optional() },
  /** Port of the codec server that `npm start` runs for its Web UI when keys are configured. @defaultValue 8234 */
  codecServerPort: { env: 'CODEC_SERVER_PORT', schema: port.default(8234) },
  /**
   * Web UI origins allowed to call the codec server, comma-separated.
   * @defaultValue the embedded dev server's UI, `http://<DEV_SERVER_IP>:<DEV_SERVER_UI_PORT>` and its localhost alias
   */
  codecServerOrigins: { env: 'CODEC_SERVER_ORIGINS', schema: z.string().min(1).optional() },
} as const satisfies Record<string, SettingField>;

/** Every setting's environment variable (src/shared/config-env-names.ts lists them without loading this module). */
export const settingEnvNames: readonly string[] = Object.values(fields).map((f) => f.env);

type Fields = typeof fields;
type Parsed = SettingsOf<Fields>;

/** The validated configuration of the core: Temporal, the worker, the jobs database, logs and metrics. A catalog's own settings are its own (e.g. src/jobs/settings.ts). */
export type Config = Omit<Parsed, 'cacheDir' | 'tls' | 'databaseUrl'> & {
  cacheDir: string;
  tls: boolean;
  databaseUrl: string;
};

/** Options that override the environment. */
export type ConfigOverrides = SettingsOverrides<Fields>;

/**
 * Reads and validates the configuration. Throws a {@link ConfigError} naming every bad field by its
 * environment variable.
 */
export function loadConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const c = loadSettings(fields, overrides, env);
  const connectionProblems = connectionIssues(c);
  if (connectionProblems.length > 0) throw new ConfigError(connectionProblems);
  // Fail at start-up, not at the first payload, on a malformed or unreadable key.
  loadKeyRing(c);
  const dataDir = path.resolve(c.dataDir);
  return markLoaded({
    ...c,
    dataDir,
    databaseUrl: c.databaseUrl ?? path.join(dataDir, 'jobs.db'),
    cacheDir: path.resolve(c.cacheDir ?? path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'durable-jobs')),
    tls: c.tls ?? (c.apiKey !== undefined || c.tlsCertPath !== undefined),
  });
}

/** Marks what {@link loadConfig} returned, so that an API taking settings or a loaded configuration can tell them apart. */
const loaded = Symbol('durable-jobs:config');

function markLoaded(config: Config): Config {
  return Object.defineProperty(config, loaded, { value: true, enumerable: false });
}

/** Whether `value` is a configuration {@link loadConfig} returned (rather than settings to load). */
export function isLoadedConfig(value: unknown): value is Config {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[loaded] === true;
}

/** A configuration already loaded, as it is; settings, loaded over the environment. */
export function resolveConfig(config?: Config | ConfigOverrides): Config {
  return isLoadedConfig(config) ? config : loadConfig(config);
}

/**
 * The TLS settings that cannot mean what the user wants: half a client certificate, an unreadable
 * certificate or key file, or TLS turned off while a credential would then travel in clear text.
 */
function connectionIssues(c: Parsed): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if ((c.tlsCertPath === undefined) !== (c.tlsKeyPath === undefined)) {
    issues.push({ path: 'TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY', message: 'give the client certificate and its key together, or neither' });
  }
  for (const [file, env] of [[c.tlsCertPath, 'TEMPORAL_TLS_CERT'], [c.tlsKeyPath, 'TEMPORAL_TLS_KEY']] as const) {
    if (file === undefined) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch {
      issues.push({ path: env, message: `cannot read ${file}` });
    }
  }
  if (c.tls === false && (c.apiKey !== undefined || c.tlsCertPath !== undefined)) {
    issues.push({ path: 'TEMPORAL_TLS', message: 'is false, but an API key or client certificate needs TLS (it would be sent in clear text)' });
  }
  return issues;
}
