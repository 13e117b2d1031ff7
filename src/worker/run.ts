import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type pino from 'pino';
import type { PayloadSchemas } from '../catalog/catalog';
import { planQueues } from '../catalog/task-queues';
import { planDependencies } from '../catalog/dependency-plan';
import { resolveConfig } from '../shared/config';
import { checkFlowControl, flowControlFix, flowControlProblems, flowControlUses } from '../client/flow-control-check';
import { describeError } from '../shared/errors';
import { createWorker, type CreateWorkerOptions } from './create-worker';
import { installRuntime, metricsBindAddress } from './logger';
import { startQueueSampler, type StopSampler } from './queue-metrics';
import { sampleOutboxBacklog, startOutboxRelay } from './outbox-relay';

/** Options of {@link runWorker}: those of `createWorker`, plus its logs and a ready callback. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ActivityContext
export interface RunWorkerOptions<S extends PayloadSchemas = PayloadSchemas, DB = any> extends CreateWorkerOptions<S, DB> {
  /** Where the worker logs. @defaultValue the runtime's logger, installed from the configuration (LOG_LEVEL, LOG_FORMAT, metrics) */
  logger?: pino.Logger;
  /** Called once every worker polls. @defaultValue none */
  onReady?: () => void;
}

/** What the shared queue runs besides its job types, as the worker's start log names it. */
const sharedQueueRuns = 'dead-letter queues, debounce and dedupe windows, per-key concurrency limiter';

/**
 * Creates the workers (one per task queue served) and runs them until SIGINT/SIGTERM: the
 * library's worker over the given catalog, with its logs, metrics and queue sampler. The Temporal
 * runtime turns those signals into `shutdown()` of each: polling stops, in-flight tasks drain
 * within the grace time, then it resolves. If one worker fails, the others are shut down too.
 */
export async function runWorker<S extends PayloadSchemas, DB>(options: RunWorkerOptions<S, DB>): Promise<void> {
  const config = resolveConfig(options.config);
  // The runtime (logs, metrics) is installed before the worker's connections are opened on it.
  const logger = options.logger ?? (await installRuntime(config)).logger;
  const { workers, plans, dependencies, db, client, untracedClient, close } = await createWorker({ ...options, config });
  let stopSampler: StopSampler | undefined;
  let stopRelay: (() => Promise<void>) | undefined;
  let stopOutboxSampler: (() => void) | undefined;
  try {
    const running = workers.map((w) => w.run().catch((err: unknown) => {
      stopAll(workers);
      throw err;
    }));
    for (const plan of plans) {
      const chosen: readonly string[] | undefined = options.types ?? config.workerJobTypes;
      const extra = chosen ? plan.types.filter((t) => !chosen.includes(t)) : [];
      // The shared queue runs the library's own workflows whatever types it holds: say so.
      const library = plan.shared ? { runs: sharedQueueRuns } : {};
      logger.info({ taskQueue: plan.taskQueue, namespace: config.namespace, types: plan.types, ...library, concurrency: options.concurrency ?? plan.concurrency, rateLimit: plan.rateLimit }, 'worker:started');
      if (extra.length > 0) logger.warn({ taskQueue: plan.taskQueue, types: extra, why: 'job types on one task queue are served together' }, 'worker:extra-types');
    }
    for (const d of dependencies) {
      logger.info({ taskQueue: d.taskQueue, dependency: d.name, types: d.types, concurrency: d.concurrency, rateLimit: d.settings.rate, breaker: { failures: d.settings.failures, windowMs: d.settings.windowMs, coolDownMs: d.settings.coolDownMs, maxCoolDownMs: d.settings.maxCoolDownMs } }, 'worker:started');
    }
    // Every job type's queue, served here or not: a queue nobody serves is the backlog to see.
    const allPlans = planQueues(config.taskQueue, options.catalog.definitions);
    const shared = allPlans.find((p) => p.shared)!;
    if (!plans.some((p) => p.shared)) {
      logger.info({ taskQueue: shared.taskQueue, runs: sharedQueueRuns, servedBy: shared.types }, `worker:shared-queue-elsewhere — this worker leaves the shared queue ${shared.taskQueue} to the workers of ${shared.types.join(', ')}, which run it`);
    }
    // Fairness keys, weights and rates per key hold only if the server does its part: say when not.
    const uses = flowControlUses(options.catalog.definitions);
    if (uses.fairness || uses.ratePerKey) void logFlowControl(untracedClient, config.taskQueue, uses, logger);
    // The dependencies' queues too: where an open breaker's attempts wait.
    const allQueues = [...allPlans.map((p) => p.taskQueue), ...planDependencies(config.taskQueue, options.catalog.definitions).map((d) => d.taskQueue)];
    if (metricsBindAddress(config)) stopSampler = startQueueSampler(untracedClient, config, options.catalog, allQueues, logger);
    // Jobs committed to the outbox of the jobs database start from here (docs/guide/outbox.md).
    if (db && config.jobOutboxRelay) stopRelay = await startOutboxRelay({ db, client, catalog: options.catalog, config, logger });
    if (db && metricsBindAddress(config)) stopOutboxSampler = sampleOutboxBacklog(db, config, logger);
    const onSignal = (signal: NodeJS.Signals) => {
      const status = workers.map((w) => w.getStatus());
      const inFlightActivities = status.reduce((n, s) => n + s.numInFlightActivities, 0);
      const inFlightWorkflowTasks = status.reduce((n, s) => n + s.numInFlightWorkflowActivations, 0);
      logger.info({ signal, graceTime: config.shutdownGraceTime, inFlightActivities, inFlightWorkflowTasks }, 'worker:shutdown');
    };
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    void Promise.allSettled(running).finally(() => process.removeListener('SIGINT', onSignal).removeListener('SIGTERM', onSignal));
    options.onReady?.();
    const results = await Promise.allSettled(running);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    logger.info('worker:stopped');
  } finally {
    await stopRelay?.();
    stopOutboxSampler?.();
    await stopSampler?.();
    await close();
  }
}

/**
 * Checks what the server does for the catalog's flow control, in the background (about 0.3 s), and
 * logs `worker:flow-control`: info when it holds, warn naming each setting and the fix when not.
 */
async function logFlowControl(client: Client, taskQueue: string, uses: { fairness: boolean; ratePerKey: boolean }, logger: pino.Logger): Promise<void> {
  try {
    const support = await checkFlowControl(client, taskQueue);
    const problems = flowControlProblems(support, uses);
    if (problems.length === 0) logger.info({ ...support }, 'worker:flow-control');
    else logger.warn({ ...support, problems, fix: flowControlFix() }, `worker:flow-control — ${problems.join('; ')}`);
  } catch (err) {
    logger.warn({ taskQueue, error: describeError(err) }, 'worker:flow-control — the server could not be checked for fairness and partitions (jobctl doctor tries again)');
  }
}

function stopAll(workers: Worker[]): void {
  for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
}
