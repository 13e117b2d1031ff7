import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { QueuePlan } from '../catalog/task-queues';
import { describeError } from '../shared/errors';
import { readRatePerKey } from '../client/task-queue-stats';
import { setActivityQueueRate } from '../shared/task-queue-rate';

export { readRatePerKey };

/** How the reason of a rate this library set begins: a rate without it was set by someone else, and is left alone. */
export const ratePerKeyReasonPrefix = 'durable-jobs limits.ratePerKey';

/** Where {@link applyRatePerKey} reports what it changed. */
interface RateLog {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
}

/**
 * Sets each served queue's `limits.ratePerKey` on the Temporal server (UpdateTaskQueueConfig's
 * fairness-key rate-limit default on the queue's activity tasks), and removes a rate this library
 * set earlier from a queue whose types no longer declare one. The server enforces it over all
 * workers (with its new matcher: `matching.useNewMatcher` or `matching.enableFairness`), and keeps
 * it across restarts; the last worker to start wins, so workers of one deployment should agree.
 * Throws, naming the field, when the server refuses it: the limit would not hold.
 */
export async function applyRatePerKey(client: Client, plans: readonly QueuePlan[], log?: RateLog): Promise<void> {
  for (const plan of plans) {
    if (plan.shared) continue;
    const reason = `${ratePerKeyReasonPrefix} of ${plan.types.join(', ')}`.slice(0, 900);
    if (plan.ratePerKey === undefined) {
      const current = await readRatePerKey(client, plan.taskQueue).catch(() => undefined);
      if (current?.ratePerKey === undefined || !current.reason?.startsWith(ratePerKeyReasonPrefix)) continue;
      await updateRate(client, plan.taskQueue, undefined, `${reason}: removed`);
      log?.info('worker:rate-per-key-removed', { taskQueue: plan.taskQueue, was: current.ratePerKey });
      continue;
    }
    try {
      await updateRate(client, plan.taskQueue, plan.ratePerKey, reason);
    } catch (err) {
      const detail = isGrpcServiceError(err) ? (err.details ?? err.message) : describeError(err);
      throw new Error(`cannot set limits.ratePerKey (${plan.ratePerKey}/s) of ${plan.types.join(', ')} on task queue ${plan.taskQueue}: the Temporal server refused UpdateTaskQueueConfig: ${detail}`, { cause: err });
    }
    log?.info('worker:rate-per-key', { taskQueue: plan.taskQueue, ratePerKey: plan.ratePerKey, types: plan.types });
  }
}

function updateRate(client: Client, taskQueue: string, ratePerKey: number | undefined, reason: string): Promise<void> {
  return setActivityQueueRate(client, taskQueue, 'per-key', ratePerKey, reason);
}
