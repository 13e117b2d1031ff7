import type pino from 'pino';
import type { Config } from '../shared/config';
import { createWorker } from './create-worker';

/**
 * Creates the worker and runs it until SIGINT/SIGTERM. The Temporal runtime turns those signals
 * into `worker.shutdown()`: polling stops, in-flight tasks drain within the grace time, then `run()`
 * resolves.
 */
export async function runWorker(config: Config, logger: pino.Logger, onReady: () => void = () => {}, options: { seedDemoAccounts?: boolean } = {}): Promise<void> {
  const { worker, close } = await createWorker(config, options);
  try {
    const running = worker.run();
    logger.info({ taskQueue: config.taskQueue, namespace: config.namespace }, 'worker:started');
    onReady();
    await running;
    logger.info('worker:stopped');
  } finally {
    await close();
  }
}
