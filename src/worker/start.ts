// `npm start`: the whole system on embedded defaults — a Temporal dev server (SQLite file, Web UI)
// plus the worker — or only the worker when TEMPORAL_ADDRESS names an existing cluster.
import { redactDatabaseUrl } from '../db/database';
import { provisionTemporalCli } from '../provision/temporal-cli';
import { loadConfig } from '../shared/config';
import { describe } from '../shared/errors';
import { temporalAddress } from '../shared/temporal-connection';
import { startDevServer, type DevServer } from './dev-server';
import { installRuntime } from './logger';
import { runWorker } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  const { logger, metricsUrl } = await installRuntime(config);
  let devServer: DevServer | undefined;
  // Until the worker runs, a signal only has the dev server to stop (a server still starting is
  // killed by dev-server.ts's exit hook).
  const early = () => {
    void (devServer ? devServer.stop() : Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', early).once('SIGTERM', early);

  if (config.temporalAddress === undefined) {
    const cli = await provisionTemporalCli({ ...config, log: (line, level) => logger[level](line) });
    logger.info({ path: cli.value, via: cli.route }, 'temporal-cli:ready');
    devServer = await startDevServer(cli.value, config, undefined, (line) => logger.warn(line));
    logger.info({ address: devServer.address, ui: devServer.uiUrl, db: `${config.dataDir}/temporal.db` }, 'dev-server:started');
  }
  process.removeListener('SIGINT', early).removeListener('SIGTERM', early);

  try {
    await runWorker(config, logger, () => {
      const ui = devServer?.uiUrl ?? '(your cluster’s Temporal UI)';
      // jobctl reads the same settings: spell out those that differ from its defaults.
      const jobctl = [
        temporalAddress(config) !== '127.0.0.1:7233' ? `TEMPORAL_ADDRESS=${temporalAddress(config)}` : '',
        config.namespace !== 'default' ? `TEMPORAL_NAMESPACE=${config.namespace}` : '',
        config.taskQueue !== 'durable-jobs' ? `TEMPORAL_TASK_QUEUE=${config.taskQueue}` : '',
        'npx jobctl',
      ].filter(Boolean).join(' ');
      console.log(
        [
          '',
          `durable-jobs is running against Temporal at ${temporalAddress(config)} (namespace ${config.namespace}, task queue ${config.taskQueue}).`,
          `  Web UI:     ${ui}`,
          `  Enqueue:    ${jobctl} enqueue send-email '{"to":"ada@example.com","subject":"Hi","body":"Hello","userId":"u1"}'`,
          `              ${jobctl} enqueue process-payment '{"paymentId":"p-1","fromAccount":"alice","toAccount":"bob","amount":1250,"currency":"EUR"}'`,
          `  Status:     ${jobctl} status <job-id>`,
          `  Outbox:     ${config.smtpUrl ? config.smtpUrl.replace(/\/\/[^@]*@/, '//***@') : config.outboxDir}`,
          `  Database:   ${redactDatabaseUrl(config.databaseUrl)}`,
          `  Failed jobs: ${jobctl} dlq list`,
          `  Metrics:    ${metricsUrl ?? 'off (METRICS=false)'}   (${jobctl} stats)`,
          '  Stop:       Ctrl-C (the worker drains, then the server stops)',
          '',
        ].join('\n'),
      );
    }, { seedDemoAccounts: devServer !== undefined });
  } finally {
    if (devServer) {
      await devServer.stop();
      logger.info('dev-server:stopped');
    }
  }
}

main().catch((err) => {
  console.error(describe(err));
  process.exit(1);
});
