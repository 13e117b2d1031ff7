import { DefaultLogger, Runtime, type LogEntry, type LogLevel } from '@temporalio/worker';
import pino from 'pino';
import type { Config } from '../shared/config';
import { ConfigError } from '../shared/errors';
import { jobMetricBuckets } from '../shared/job-metrics';
import { bindError } from '../shared/net';
import { redactDeep, secretsFromEnv } from '../shared/redact';
import { logFormat, prettyStream } from './log-format';
import { tracingConfigured } from '../shared/tracing-env';
import { activeTraceIds } from '../shared/traced';

/** What the worker's runtime was installed with. */
export interface InstalledRuntime {
  logger: pino.Logger;
  /** The metrics endpoint (`http://host:port/metrics`), when metrics are on. */
  metricsUrl?: string;
}

/** The Prometheus bind address, or undefined when metrics are off (METRICS=false or METRICS_PORT=0). */
export function metricsBindAddress(config: Pick<Config, 'metrics' | 'metricsHost' | 'metricsPort'>): string | undefined {
  if (!config.metrics || config.metricsPort === 0) return undefined;
  const host = config.metricsHost.includes(':') ? `[${config.metricsHost}]` : config.metricsHost;
  return `${host}:${config.metricsPort}`;
}

/**
 * The attributes of an SDK log entry as written: all of them but the activity's `taskToken`, an
 * opaque base64 blob of a few hundred bytes on every activity line that no reader uses (the job
 * ID, activity ID and attempt identify the attempt).
 */
export function logAttributes(meta: LogEntry['meta']): Record<string, unknown> {
  const attributes: Record<string, unknown> = { ...meta };
  delete attributes.taskToken;
  return attributes;
}

/**
 * Installs the Temporal runtime: a pino logger (JSON lines, or pretty lines on a terminal) and,
 * unless turned off, a Prometheus endpoint serving the SDK's own metrics and the job metrics
 * (`jobs_*`). Workflow and activity logs (`job:start`, `job:attempt-failed`, …) arrive here with
 * the SDK's metadata (workflowId, workflowType, activityType, attempt).
 */
export async function installRuntime(config: Pick<Config, 'logLevel' | 'logFormat' | 'metrics' | 'metricsHost' | 'metricsPort'>): Promise<InstalledRuntime> {
  const format = logFormat(config);
  const secrets = secretsFromEnv();
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'durable-jobs' },
    // A line written under an active span names it, so that it leads to its trace (activity lines
    // get theirs from the SDK's tracing interceptor). Off, no mixin and no module.
    ...(tracingConfigured() ? { mixin: () => activeTraceIds() } : {}),
    // Defence in depth: whatever a library puts in a line, the configured secrets never leave.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => redactDeep(arg, secrets)) as Parameters<typeof method>);
      },
    },
  };
  const logger = format === 'pretty' ? pino(options, prettyStream(process.stdout.isTTY === true)) : pino(options);
  const write = (entry: LogEntry) => {
    // The workflow bundler's multi-line webpack report is for debugging, not for every start; on a
    // terminal, so are the SDK worker's own lifecycle lines (bundle created, state changed).
    const chatter = entry.message.startsWith('asset workflow-bundle') || (format === 'pretty' && entry.level === 'INFO' && entry.meta?.sdkComponent === 'worker');
    const level = chatter ? 'debug' : (entry.level.toLowerCase() as pino.Level);
    logger[level]({ ...logAttributes(entry.meta), ts: Number(entry.timestampNanos / 1_000_000n) }, entry.message);
  };
  const level = config.logLevel.toUpperCase() as LogLevel;
  const bindAddress = metricsBindAddress(config);
  if (bindAddress) await assertMetricsBindable(config, bindAddress);
  Runtime.install({
    logger: new DefaultLogger(level, write),
    telemetryOptions: {
      // The SDK's Rust core logs through the same logger.
      logging: { filter: { core: level === 'TRACE' || level === 'DEBUG' ? level : 'WARN', other: 'ERROR' }, forward: {} },
      ...(bindAddress ? { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, useSecondsForDurations: true, histogramBucketOverrides: jobMetricBuckets } } } : {}),
    },
  });
  const shownHost = config.metricsHost === '0.0.0.0' ? '127.0.0.1' : config.metricsHost;
  return { logger, metricsUrl: bindAddress ? `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${config.metricsPort}/metrics` : undefined };
}

/**
 * The SDK's exporter, failing to bind, says only "Failed to start prometheus metrics exporter:
 * Address already in use". Binding the same address first, and letting go, names the settings
 * instead: a port taken on this interface or another (which a wildcard bind collides with), a
 * host that is not this machine's, a port that needs privileges.
 */
async function assertMetricsBindable(config: Pick<Config, 'metricsHost' | 'metricsPort'>, bindAddress: string): Promise<void> {
  const err = await bindError(config.metricsHost, config.metricsPort);
  if (!err) return;
  const off = 'or METRICS=false to serve no metrics';
  const issue =
    err.code === 'EADDRINUSE'
      ? { path: 'METRICS_PORT', message: `${bindAddress} is already in use, on that interface or another; choose another METRICS_PORT or METRICS_HOST, ${off}` }
      : err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
        ? { path: 'METRICS_HOST', message: `cannot bind ${bindAddress}: ${config.metricsHost} is not an address of this machine; choose another METRICS_HOST (0.0.0.0: every interface), ${off}` }
        : err.code === 'EACCES'
          ? { path: 'METRICS_PORT', message: `not allowed to bind ${bindAddress} (a port below 1024 needs privileges); choose another METRICS_PORT, ${off}` }
          : { path: 'METRICS_HOST, METRICS_PORT', message: `cannot bind ${bindAddress}: ${err.message}; ${off}` };
  throw new ConfigError([issue], { cause: err });
}
