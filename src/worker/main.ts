// `npm run worker`: only the worker, against TEMPORAL_ADDRESS (or the embedded dev server's address).
import { loadConfig } from '../shared/config';
import { describeRedacted } from '../shared/redact';
import { installRuntime } from './logger';
import { runWorker } from './run';

async function main(): Promise<void> {
  const config = loadConfig();
  const { logger, metricsUrl } = await installRuntime(config);
  await runWorker(config, logger, () => {
    if (metricsUrl) logger.info({ url: metricsUrl }, 'metrics:serving');
  });
}

main().catch((err) => {
  console.error(describeRedacted(err));
  process.exit(1);
});
