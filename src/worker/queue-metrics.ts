import { setMaxListeners } from 'node:events';
import type { Client } from '@temporalio/client';
import { msToNumber } from '../shared/sdk-internals';
import { Runtime } from '@temporalio/worker';
import type pino from 'pino';
import { DeadLetterQueue } from '../client/dead-letters';
import { JobPauses } from '../client/job-pauses';
import { JobBreakers } from '../client/breakers';
import { limitedTypes } from '../client/concurrency-limits';
import { readRatePerKey, taskQueueBacklog } from '../client/task-queue-stats';
import type { Catalog } from '../catalog/catalog';
import { taskQueueFor } from '../catalog/task-queues';
import { jobMetrics, type JobMetric } from '../shared/job-metrics';
import { describeError } from '../shared/errors';
import type { Config } from '../shared/config';

/** Stops a {@link startQueueSampler}. */
export type StopSampler = () => Promise<void>;

/**
 * Samples the task queue's backlog (count and age, workflow and activity sides), each job type's
 * dead-letter queue size, whether it is paused (with the jobs its pause holds) and, for a type with
 * a concurrency limit, the jobs running and waiting under it, on an interval,
 * into gauges. One sample is taken at once, so the gauges
 * exist from the first scrape. A failed sample is logged (once per run of failures) and retried at
 * the next tick; it never stops the worker.
 */
export function startQueueSampler(
  client: Client,
  config: Pick<Config, 'taskQueue' | 'metricsSampleInterval'>,
  catalog: Catalog,
  taskQueues: readonly string[],
  logger: pino.Logger,
): StopSampler {
  const meter = Runtime.instance().metricMeter;
  const gauge = (m: JobMetric) => meter.createGauge(m.name, 'float', m.unit, m.description);
  const backlog = gauge(jobMetrics.backlog);
  const backlogAge = gauge(jobMetrics.backlogAge);
  const dlqSize = gauge(jobMetrics.deadLetterSize);
  const dlq = new DeadLetterQueue(client, config.taskQueue, catalog);
  const paused = gauge(jobMetrics.paused);
  const pausedJobs = gauge(jobMetrics.pausedJobs);
  const pauses = new JobPauses(client, config.taskQueue, catalog);
  const pauseSample = () =>
    Promise.all(catalog.types.map(async (type) => {
      const pause = await pauses.get(type);
      return { type, pause, holding: pause ? await pauses.openJobs(type) : 0 };
    }));
  const ratePerKey = gauge(jobMetrics.ratePerKey);
  const ratedSample = () =>
    Promise.all(catalog.definitions.map(async (d) => ({ type: d.type, rate: d.limits?.ratePerKey === undefined ? 0 : ((await readRatePerKey(client, taskQueueFor(config.taskQueue, d))).ratePerKey ?? 0) })));
  const limitRunning = gauge(jobMetrics.limitRunning);
  const limitWaiting = gauge(jobMetrics.limitWaiting);
  const limitedTypeNames = catalog.definitions.filter((d) => d.limits?.concurrencyPerKey !== undefined).map((d) => d.type);
  const breakerState = gauge(jobMetrics.breakerState);
  const breakers = new JobBreakers(client, config.taskQueue, catalog);
  let failing = false;
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  // One controller per sample: the calls' abort listeners go with it, instead of piling up on one signal.
  let current: AbortController | undefined;

  const sample = async () => {
    const controller = (current = new AbortController());
    // A sample makes one call per task queue and one per DLQ shard (16 per job type), all under
    // this signal: more listeners than Node's default of 10 is expected, not a leak.
    setMaxListeners(0, controller.signal);
    try {
      const [queues, counts, pauseStates, limited, rated, breakerViews] = await client.withAbortSignal(controller.signal, () =>
        Promise.all([
          Promise.all(taskQueues.map(async (q) => ({ q, sides: await taskQueueBacklog(client, q) }))),
          dlq.counts(),
          pauseSample(),
          limitedTypeNames.length > 0 ? limitedTypes(client, config.taskQueue) : Promise.resolve([]),
          ratedSample(),
          breakers.list(),
        ]),
      );
      for (const view of breakerViews) breakerState.set(view.state === 'open' ? 2 : view.state === 'half-open' ? 1 : 0, { task_queue: config.taskQueue, dependency: view.dependency });
      for (const { type, rate } of rated) ratePerKey.set(rate, { task_queue: config.taskQueue, job_type: type });
      // Every type gets both gauges (0 without a limit), as every type gets jobs_paused.
      for (const type of catalog.types) {
        const row = limited.find((l) => l.type === type);
        limitRunning.set(row?.running ?? 0, { task_queue: config.taskQueue, job_type: type });
        limitWaiting.set(row?.waiting ?? 0, { task_queue: config.taskQueue, job_type: type });
      }
      for (const { type, pause, holding } of pauseStates) {
        paused.set(pause ? 1 : 0, { task_queue: config.taskQueue, job_type: type });
        pausedJobs.set(holding, { task_queue: config.taskQueue, job_type: type });
      }
      for (const { q, sides } of queues) {
        for (const side of sides) {
          backlog.set(side.count, { task_queue: q, queue_type: side.queueType });
          backlogAge.set(side.ageSeconds, { task_queue: q, queue_type: side.queueType });
        }
      }
      for (const [type, count] of Object.entries(counts)) dlqSize.set(count['dead-lettered'], { task_queue: config.taskQueue, job_type: type });
      if (failing) logger.info('metrics:sampling-resumed');
      failing = false;
    } catch (err) {
      if (stopped) return;
      if (!failing) logger.warn({ error: describeError(err) }, 'metrics:sampling-failed');
      failing = true;
    }
  };
  const tick = () => {
    inFlight ??= sample().finally(() => (inFlight = undefined));
  };
  tick();
  const timer = setInterval(tick, msToNumber(config.metricsSampleInterval as Parameters<typeof msToNumber>[0]));
  timer.unref();
  // The worker closes the client's connection next: a sample still in flight must end first.
  return async () => {
    clearInterval(timer);
    stopped = true;
    current?.abort();
    await inFlight;
  };
}
