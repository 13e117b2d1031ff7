import type pino from 'pino';
import type { Config } from '../shared/config';
import { createWorker } from './create-worker';
import { metricsBindAddress } from './logger';
import { startQueueSampler, type StopSampler } from './queue-metrics';

/**
 * Creates the worker and runs it until SIGINT/SIGTERM. The Temporal runtime turns those signals
 * into `worker.shutdown()`: polling stops, in-flight tasks drain within the grace time, then `run()`
 * resolves.
 */
export async function runWorker(config: Config, logger: pino.Logger, onReady: () => void = () => {}, options: { seedDemoAccounts?: boolean } = {}): Promise<void> {
  const { worker, client, close } = await createWorker(config, options);
  let stopSampler: StopSampler | undefined;
  try {
    const running = worker.run();
    logger.info({ taskQueue: config.taskQueue, namespace: config.namespace }, 'worker:started');
    if (metricsBindAddress(config)) stopSampler = startQueueSampler(client, config, logger);
    const onSignal = (signal: NodeJS.Signals) => {
      const { numInFlightActivities, numInFlightWorkflowActivations } = worker.getStatus();
      logger.info({ signal, graceTime: config.shutdownGraceTime, inFlightActivities: numInFlightActivities, inFlightWorkflowTasks: numInFlightWorkflowActivations }, 'worker:shutdown');
    };
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    running.finally(() => process.removeListener('SIGINT', onSignal).removeListener('SIGTERM', onSignal)).catch(() => undefined);
    onReady();
    await running;
    logger.info('worker:stopped');
  } finally {
    await stopSampler?.();
    await close();
  }
}
