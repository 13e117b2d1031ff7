import { DefaultLogger, Runtime, type LogEntry, type LogLevel } from '@temporalio/worker';
import pino from 'pino';
import type { Config } from '../shared/config';
import { redactDeep, secretsFromEnv } from '../shared/redact';

/**
 * Installs the Temporal runtime with a pino logger: one JSON line per event on stdout. Workflow and
 * activity logs (`job:start`, `job:attempt-failed`, …) arrive here with the SDK's metadata
 * (workflowId, workflowType, activityType, attempt).
 */
export function installRuntime(config: Pick<Config, 'logLevel'>): pino.Logger {
  const secrets = secretsFromEnv();
  const logger = pino({
    level: config.logLevel,
    base: { service: 'durable-jobs' },
    // Defence in depth: whatever a library puts in a line, the configured secrets never leave.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => redactDeep(arg, secrets)) as Parameters<typeof method>);
      },
    },
  });
  const write = (entry: LogEntry) => {
    // The workflow bundler's multi-line webpack report is for debugging, not for every start.
    const level = entry.message.startsWith('asset workflow-bundle') ? 'debug' : (entry.level.toLowerCase() as pino.Level);
    logger[level]({ ...entry.meta, ts: Number(entry.timestampNanos / 1_000_000n) }, entry.message);
  };
  const level = config.logLevel.toUpperCase() as LogLevel;
  Runtime.install({
    logger: new DefaultLogger(level, write),
    // The SDK's Rust core logs through the same logger, so every line is JSON.
    telemetryOptions: { logging: { filter: { core: level === 'TRACE' || level === 'DEBUG' ? level : 'WARN', other: 'ERROR' }, forward: {} } },
  });
  return logger;
}
