import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '../shared/sdk-internals';
import { temporal } from '@temporalio/proto';

/** The backlog of one side of a task queue, as the server estimates it. */
export interface QueueBacklog {
  /** Which tasks: workflow tasks (a job's next step is due) or activity tasks (an attempt is due). */
  queueType: 'workflow' | 'activity';
  /** Tasks waiting for a worker (approximate). */
  count: number;
  /** Age of the oldest waiting task, in seconds; 0 when nothing waits. */
  ageSeconds: number;
  /** Workers that polled this side of the queue lately (distinct identities the server reports). */
  pollers: number;
}

const { TaskQueueType } = temporal.api.enums.v1;

/**
 * The backlog of the task queue's workflow and activity sides: `DescribeTaskQueue` with
 * `reportStats` (servers 1.27 and later). A backlog that grows, or ages, means the workers do not
 * keep up.
 */
export async function taskQueueBacklog(client: Client, taskQueue: string): Promise<QueueBacklog[]> {
  const sides = [
    ['workflow', TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW],
    ['activity', TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY],
  ] as const;
  return Promise.all(
    sides.map(async ([queueType, type]) => {
      const response = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: type,
        reportStats: true,
      });
      const stats = response.stats;
      const ageMs = optionalTsToMs(stats?.approximateBacklogAge) ?? 0;
      const pollers = new Set((response.pollers ?? []).map((p) => p.identity ?? '')).size;
      return { queueType, count: Number(stats?.approximateBacklogCount ?? 0), ageSeconds: ageMs / 1000, pollers };
    }),
  );
}

/** The per-fairness-key rate limit the server holds for a queue's activity tasks, with who set it. */
export async function readRatePerKey(client: Client, taskQueue: string): Promise<{ ratePerKey?: number; reason?: string }> {
  const described = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    reportConfig: true,
  });
  const limit = described.config?.fairnessKeysRateLimitDefault;
  const rps = limit?.rateLimit?.requestsPerSecond;
  return { ratePerKey: typeof rps === 'number' ? Number(rps.toPrecision(6)) : undefined, reason: limit?.metadata?.reason ?? undefined };
}
