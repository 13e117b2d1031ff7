// `npm start`: the whole system on embedded defaults — a Temporal dev server (SQLite file, Web UI)
// plus the worker — or only the worker when TEMPORAL_ADDRESS names an existing cluster.
// First: tracing starts before pg is loaded, so that its queries are traced.
import '../worker/tracing-start';
import { startConfiguredCodecServer } from '../jobctl/cli-codec';
import { provisionTemporalCli } from '../provision/temporal-cli';
import type { CodecServer } from '../client/codec-server';
import { loadConfig } from '../shared/config';
import { loadKeyRing } from '../shared/encryption-keys';
import { describeRedacted } from '../shared/redact';
import { temporalAddress } from '../shared/temporal-connection';
import { startDevServer, type DevServer } from './dev-server';
import { installRuntime } from '../worker/logger';
import { stopWhenOrphaned } from '../worker/orphan-watch';
import { loadProjectWorker } from '../worker/load-worker';
import { runWorker } from '../worker/run';
import { startBundledConsole, type BundledConsole } from './start-console';
import { tracingTarget } from '../shared/tracing-env';

async function main(): Promise<void> {
  const config = loadConfig();
  const definition = loadProjectWorker(process.env.DURABLE_JOBS_WORKER);
  const { logger, metricsUrl } = await installRuntime(config);
  let devServer: DevServer | undefined;
  let codecServer: CodecServer | undefined;
  // Until the worker runs, a signal only has the dev server to stop (a server still starting is
  // killed by dev-server.ts's exit hook).
  const early = () => {
    void Promise.all([devServer?.stop(), codecServer?.close()]).finally(() => process.exit(130));
  };
  process.once('SIGINT', early).once('SIGTERM', early);
  stopWhenOrphaned();

  const encrypted = loadKeyRing(config) !== undefined;
  if (!encrypted) logger.warn('payloads:unencrypted — job payloads are stored in clear in Temporal; set ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE to encrypt them (docs/security.md)');
  if (config.temporalAddress === undefined) {
    const cli = await provisionTemporalCli({ ...config, log: (line, level) => logger[level](line) });
    logger.info({ path: cli.value, via: cli.route }, 'temporal-cli:ready');
    if (encrypted) {
      codecServer = await startConfiguredCodecServer(config, { host: config.devServerIp, port: config.codecServerPort });
      logger.info({ url: codecServer.url }, 'codec-server:started');
    }
    devServer = await startDevServer(cli.value, config, undefined, (line) => logger.warn(line), codecServer?.url);
    logger.info({ address: devServer.address, http: devServer.httpAddress, ui: devServer.uiUrl, db: `${config.dataDir}/temporal.db` }, 'dev-server:started');
  }
  process.removeListener('SIGINT', early).removeListener('SIGTERM', early);
  const consoleServer: BundledConsole | undefined = await startBundledConsole(config, definition.catalog, devServer?.uiUrl, logger);
  // The Temporal runtime turns the first SIGINT/SIGTERM into a drain and then stops listening, so a
  // second one (an impatient Ctrl-C) would kill this process outright and leave the dev server, in
  // its own process group, running. Instead it stops the dev server at once and exits; attempts cut
  // short are retried after their heartbeat timeout, as after a crash.
  // Under `npm start` one Ctrl-C arrives twice: the terminal signals the whole foreground group
  // (npm and this process), and npm forwards its own copy. A repeat within this window is that
  // same Ctrl-C, not a second one.
  const sameSignalMs = process.env.npm_lifecycle_event === 'start' ? 500 : 0;
  let signals = 0;
  let lastSignalAt = 0;
  const again = (signal: NodeJS.Signals) => {
    const now = Date.now();
    const repeat = signals > 0 && now - lastSignalAt < sameSignalMs;
    lastSignalAt = now;
    if (repeat || ++signals < 2) return;
    logger.warn({ signal }, 'shutdown:forced');
    void (devServer ? devServer.stop(2000) : Promise.resolve()).finally(() => process.exit(130));
  };
  process.on('SIGINT', again).on('SIGTERM', again);

  try {
    await runWorker({ ...definition, config, logger, seed: devServer !== undefined, onReady: () => {
      const ui = devServer?.uiUrl ?? '(your cluster’s Temporal UI)';
      // jobctl reads the same settings: spell out those that differ from its defaults.
      const httpAddress = devServer?.httpAddress ?? config.temporalHttpAddress;
      const nonDefault = temporalAddress(config) !== '127.0.0.1:7233' || (httpAddress !== undefined && httpAddress !== '127.0.0.1:7243');
      const jobctl = [
        temporalAddress(config) !== '127.0.0.1:7233' ? `TEMPORAL_ADDRESS=${temporalAddress(config)}` : '',
        // With TEMPORAL_ADDRESS set, jobctl goes over the HTTP API only at the address it is given.
        nonDefault && httpAddress ? `TEMPORAL_HTTP_ADDRESS=${httpAddress}` : '',
        config.namespace !== 'default' ? `TEMPORAL_NAMESPACE=${config.namespace}` : '',
        config.taskQueue !== 'durable-jobs' ? `TEMPORAL_TASK_QUEUE=${config.taskQueue}` : '',
        'npx jobctl',
      ].filter(Boolean).join(' ');
      console.log(
        [
          '',
          `durable-jobs is running against Temporal at ${temporalAddress(config)} (namespace ${config.namespace}, task queue ${config.taskQueue}).`,
          `  Web UI:     ${ui}${codecServer ? ` (payloads decrypted through ${codecServer.url})` : ''}`,
          `  Console:    ${consoleServer ? `${consoleServer.url}${consoleServer.accounts ? '' : ' (loopback, no accounts: you are the operator "local")'}` : 'off (CONSOLE=false)'}`,
          ...(definition.banner?.(config) ?? []).map((line) => line.replace('npx jobctl', jobctl)),
          `  Status:     ${jobctl} status <job-id>`,
          `  Failed jobs: ${jobctl} dlq list`,
          `  Metrics:    ${metricsUrl ?? 'off (METRICS=false)'}   (${jobctl} stats)`,
          `  Tracing:    ${tracingTarget() ?? 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to turn it on)'}`,
          ...(encrypted ? ['  Encrypted:  payloads are encrypted; jobctl and your clients need the same ENCRYPTION_KEYS or ENCRYPTION_KEY_FILE'] : []),
          '  Stop:       Ctrl-C (the worker drains, then the server stops)',
          '',
        ].join('\n'),
      );
    } });
  } finally {
    await consoleServer?.close();
    await codecServer?.close();
    if (devServer) {
      await devServer.stop();
      logger.info('dev-server:stopped');
    }
  }
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
