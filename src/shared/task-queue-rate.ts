import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const { TaskQueueType } = temporal.api.enums.v1;

/**
 * Sets a rate of a task queue's activity tasks on the Temporal server (UpdateTaskQueueConfig), which
 * it enforces over every worker: the whole queue's (`queue`), or the default per fairness key
 * (`per-key`). Without a rate, the update removes that limit. `reason` is kept with it.
 */
export async function setActivityQueueRate(client: Client, taskQueue: string, which: 'queue' | 'per-key', rate: number | undefined, reason: string): Promise<void> {
  const update = rate === undefined ? { reason } : { rateLimit: { requestsPerSecond: rate }, reason };
  await client.workflowService.updateTaskQueueConfig({
    namespace: client.options.namespace,
    identity: client.options.identity,
    taskQueue,
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    ...(which === 'queue' ? { updateQueueRateLimit: update } : { updateFairnessKeyRateLimitDefault: update }),
  });
}
