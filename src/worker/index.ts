// The worker entry point (`durable-jobs/worker`): run a catalog's jobs on your own Temporal.
export { defineWorker, jobsDatabase, type ActivityContext, type ActivityContextBase, type DatabaseDefinition, type SettingsContext, type WorkerDefinition } from './define-worker';
export { createWorker, queueWorkerOptions, type CreateWorkerOptions, type CreatedWorker } from './create-worker';
export { runWorker, type RunWorkerOptions } from './run';
export { runWorkerProcess } from './run-process';
export { startTracingIfConfigured } from './tracing-start';
export { loadConfig, type Config, type ConfigOverrides } from '../shared/config';
export { openDatabase } from '../db/database';
export { migrateToLatest } from '../db/migrate';
export { redactDatabaseUrl } from '../db/database';
export { loadSettings, type SettingField, type SettingsOf, type SettingsOverrides } from '../shared/settings';
export { describeRedacted, redact, secretsFromEnv } from '../shared/redact';
export { startConsole, hashPassword, type ConsoleAccount, type ConsoleRole, type ConsoleUser, type ConsoleConfig, type ConsoleConfigOverrides, type RunningConsole, type StartConsoleOptions } from './console';
