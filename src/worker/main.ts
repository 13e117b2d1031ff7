// `npm run worker [-- --types send-email,sync-data]`: only the worker, against TEMPORAL_ADDRESS (or
// the embedded dev server's address), for every job type or the ones named.
// First: tracing starts before pg is loaded, so that its queries are traced.
import './tracing-start';
import { Command } from 'commander';
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { installRuntime } from './logger';
import { stopWhenOrphaned } from './orphan-watch';
import { loadProjectWorker } from './load-worker';
import { runWorker } from './run';

async function main(): Promise<void> {
  const program = new Command('worker')
    .description('Run the durable-jobs worker')
    .option('--types <list>', 'comma-separated job types to run (default: all of the catalog, or WORKER_JOB_TYPES)')
    .option('--worker <module>', 'the module exporting the worker definition (default: DURABLE_JOBS_WORKER, else package.json "durable-jobs".worker)')
    .allowExcessArguments(false)
    .parse(process.argv);
  const { types, worker: workerModule } = program.opts<{ types?: string; worker?: string }>();
  const config = loadConfig({ workerJobTypes: types });
  const definition = loadProjectWorker(workerModule);
  stopWhenOrphaned();
  const { logger, metricsUrl } = await installRuntime(config);
  await runWorker({
    ...definition,
    config,
    logger,
    onReady: () => {
      if (metricsUrl) logger.info({ url: metricsUrl }, 'metrics:serving');
    },
  });
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
