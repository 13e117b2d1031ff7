// Who polls a task queue, as the server lists it. A plain DescribeTaskQueue answers for the root
// partition only; a queue has 4 partitions on a default cluster, and a worker's polls land on any of
// them. So the pollers are read across every partition (DescribeTaskQueue in its enhanced mode,
// which the server fans out), and the root's own list is added: it also names workers of other build
// IDs. A server that refuses the enhanced mode is answered by the root's list alone.
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { optionalTsToMs } from '../shared/sdk-internals';

const { DescribeTaskQueueMode, TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;

/**
 * How old a live worker's last poll can look, in ms. The server lists when a poll began, and holds
 * a poll with nothing to hand out for a minute (matching.longPollExpirationInterval) before the
 * worker polls again: an idle worker's last poll is up to a minute old, and so is a busy one's on
 * the normal queue while its work comes through its sticky queue. 15 s more cover a loaded server.
 */
export const livePollWindowMs = 75_000;

/** Which side of a task queue. */
export type QueueSide = 'workflow' | 'activity';

/** gRPC INVALID_ARGUMENT and UNIMPLEMENTED: a server without the enhanced mode. */
const refusedModeCodes = new Set<number>([3, 12]);

const sideTypes = {
  workflow: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  activity: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
} as const;

/** When each poller (by identity) last began a poll on one side of `taskQueue`, in ms since the epoch, across its partitions. */
export async function queuePollers(client: Client, taskQueue: string, side: QueueSide): Promise<Map<string, number>> {
  const namespace = client.options.namespace;
  const queue = { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL };
  const type = sideTypes[side];
  const [root, partitions] = await Promise.all([
    client.workflowService.describeTaskQueue({ namespace, taskQueue: queue, taskQueueType: type }),
    client.workflowService
      .describeTaskQueue({
        namespace,
        taskQueue: queue,
        apiMode: DescribeTaskQueueMode.DESCRIBE_TASK_QUEUE_MODE_ENHANCED,
        versions: { unversioned: true },
        taskQueueTypes: [type],
        reportPollers: true,
      })
      .catch((err: unknown) => {
        if (isGrpcServiceError(err) && refusedModeCodes.has(err.code)) return undefined;
        throw err;
      }),
  ]);
  const pollers = [...(root.pollers ?? [])];
  for (const version of Object.values(partitions?.versionsInfo ?? {})) pollers.push(...(version.typesInfo?.[type]?.pollers ?? []));
  const lastPoll = new Map<string, number>();
  for (const p of pollers) {
    const identity = p.identity ?? '';
    lastPoll.set(identity, Math.max(optionalTsToMs(p.lastAccessTime) ?? 0, lastPoll.get(identity) ?? 0));
  }
  return lastPoll;
}

/** When a worker last began a poll on one side of `taskQueue`, in ms since the epoch; 0 if the server lists none. */
export async function lastPollAt(client: Client, taskQueue: string, side: QueueSide): Promise<number> {
  return Math.max(0, ...(await queuePollers(client, taskQueue, side)).values());
}

/** Whether a worker began a poll on the workflow side of `taskQueue`, on any partition, within {@link livePollWindowMs}. */
export async function polledLately(client: Client, taskQueue: string): Promise<boolean> {
  return Date.now() - (await lastPollAt(client, taskQueue, 'workflow')) <= livePollWindowMs;
}
