// The environment variables of the core's configuration (src/shared/config.ts), listed without
// loading it: its zod schemas take tens of milliseconds to build, and jobctl's HTTP reads check
// the configuration only when one of these is set. test/shared/config.test.ts keeps the two lists equal.
export const configEnvNames: readonly string[] = [
  'TEMPORAL_ADDRESS', 'TEMPORAL_HTTP_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_TASK_QUEUE', 'TEMPORAL_TLS', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_API_KEY',
  'DEV_SERVER_IP', 'DEV_SERVER_PORT', 'DEV_SERVER_HTTP_PORT', 'DEV_SERVER_UI_PORT', 'DATA_DIR', 'DATABASE_URL', 'LOG_LEVEL', 'WORKER_JOB_TYPES', 'LOG_FORMAT',
  'METRICS', 'METRICS_HOST', 'METRICS_PORT', 'METRICS_SAMPLE_INTERVAL', 'JOB_OUTBOX_RELAY', 'JOB_OUTBOX_RETENTION', 'SHUTDOWN_GRACE_TIME', 'DURABLE_JOBS_CACHE_DIR', 'TEMPORAL_CLI_PATH', 'TEMPORAL_TEST_SERVER_PATH',
  'ENCRYPTION_KEYS', 'ENCRYPTION_KEY_FILE', 'CODEC_SERVER_PORT', 'CODEC_SERVER_ORIGINS',
];

/** The task queue a deployment uses when TEMPORAL_TASK_QUEUE is unset. A stored contract. */
export const defaultTaskQueue = 'durable-jobs';
