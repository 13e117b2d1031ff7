// `npm run worker [-- --types send-email,sync-data]`: only the worker, against TEMPORAL_ADDRESS (or
// the embedded dev server's address), for every job type or the ones named.
import { Command } from 'commander';
import { jobTypes } from '../jobs/registry';
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { installRuntime } from './logger';
import { stopWhenOrphaned } from './orphan-watch';
import { runWorker } from './run';

async function main(): Promise<void> {
  const program = new Command('worker')
    .description('Run the durable-jobs worker')
    .option('--types <list>', `comma-separated job types to run, of ${jobTypes.join(', ')} (default: all, or WORKER_JOB_TYPES)`)
    .allowExcessArguments(false)
    .parse(process.argv);
  const { types } = program.opts<{ types?: string }>();
  const config = loadConfig({ workerJobTypes: types });
  stopWhenOrphaned();
  const { logger, metricsUrl } = await installRuntime(config);
  await runWorker(config, logger, () => {
    if (metricsUrl) logger.info({ url: metricsUrl }, 'metrics:serving');
  });
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
