// Whether the Temporal server does what fairness keys, weights, priorities and rates per key need:
// its new matcher and fairness on (`matching.useNewMatcher`, `matching.enableFairness`), and one
// partition per task queue. No API reports dynamic config, so the check looks: the server lists a
// queue's partitions (ListTaskQueuePartitions, a read), and the matcher is probed with a few
// workflows on queues of their own that nobody serves, polled by hand in the order the server
// hands them out, then terminated. The outcome is recorded in the memo of a terminated workflow, so
// that `jobctl stats` reads the last one without probing.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { devServerDynamicConfig, devServerDynamicConfigArgs } from '../shared/dev-server-config';

const { TaskQueueKind, TaskQueueType } = temporal.api.enums.v1;

/** What the server does for flow control, as checked. */
export interface FlowControlSupport {
  /** When it was checked (ISO 8601). */
  checkedAt: string;
  /** The task queue checked (the deployment's shared queue). */
  taskQueue: string;
  /** Partitions of that queue (the most of its workflow and activity sides). */
  partitions: number;
  /** Whether backlogged tasks are handed out by priority key (the new matcher). */
  priority: 'on' | 'off' | 'unknown';
  /** Whether backlogged tasks are shared between fairness keys (fairness). */
  fairness: 'on' | 'off' | 'unknown';
}

/** What flow control a catalog's types declare (priorities are given at enqueue, not declared). */
export function flowControlUses(definitions: readonly { fairness?: unknown; limits?: { ratePerKey?: number } }[]): { fairness: boolean; ratePerKey: boolean } {
  return { fairness: definitions.some((d) => d.fairness !== undefined), ratePerKey: definitions.some((d) => d.limits?.ratePerKey !== undefined) };
}

/** The workflow type of the probe's workflows; no worker has it. */
export const probeWorkflowType = 'durable-jobs-flow-control-probe';

/** The workflow whose memo holds the last check of a task queue. */
export function flowControlRecordId(taskQueue: string): string {
  return `durable-jobs-flow-control:${taskQueue}`;
}

const memoKey = 'flowControl';

/** How long a probe poll may wait for its task: the tasks are in the backlog before it polls. */
const pollMs = 10_000;

/** The settings flow control needs, as the line that starts a dev server with them. */
export const flowControlStartDev = `temporal server start-dev ${devServerDynamicConfigArgs().join(' ')}`;

/** Where to set them, for a fix text. */
export function flowControlFix(): string {
  const keys = Object.entries(devServerDynamicConfig).map(([k, v]) => `${k}: ${v}`).join(', ');
  return `start the dev server with\n  ${flowControlStartDev}\nor set in the cluster's dynamic config: ${keys}`;
}

/**
 * What the declared flow control will not get on this server, as sentences naming the setting;
 * none when it holds. `uses` says what the catalog declares (a rate per key is checked against
 * fairness, which enforces it).
 */
export function flowControlProblems(s: FlowControlSupport, uses: { fairness?: boolean; ratePerKey?: boolean; priority?: boolean } = { fairness: true, ratePerKey: true, priority: true }): string[] {
  const problems: string[] = [];
  const keyed = [uses.fairness ? 'fairness keys and weights' : undefined, uses.ratePerKey ? 'rates per key' : undefined].filter(Boolean).join(' and ');
  if (keyed && s.fairness === 'off') problems.push(`fairness is off on this server (matching.enableFairness): ${keyed} are ignored, and jobs run in arrival order`);
  if (uses.priority && s.priority === 'off') problems.push('the new matcher is off on this server (matching.useNewMatcher): priorities (--priority) are ignored');
  if (s.partitions > 1 && (keyed || uses.priority)) {
    const unchecked = s.fairness === 'unknown' ? '; fairness itself cannot be checked across partitions' : '';
    problems.push(
      `task queue ${s.taskQueue} has ${s.partitions} partitions (matching.numTaskqueueReadPartitions, matching.numTaskqueueWritePartitions): shares, priority order and rates hold within each partition, so they are inexact (a 2/s rate per key ran at 1.4–1.6/s on 4)${unchecked}`,
    );
  }
  return problems;
}

/** Partitions of a task queue, as the server lists them. */
async function partitionsOf(client: Client, taskQueue: string): Promise<number> {
  const listed = await client.workflowService.listTaskQueuePartitions({ namespace: client.options.namespace, taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL } });
  return Math.max(listed.workflowTaskQueuePartitions?.length ?? 1, listed.activityTaskQueuePartitions?.length ?? 1, 1);
}

/**
 * Starts `tasks` in order on a fresh queue nobody serves, then polls `polls` workflow tasks and
 * returns the IDs the server handed out, in its order. The workflows are terminated whatever happens.
 */
async function handedOut(client: Client, tasks: { id: string; priority: { priorityKey?: number; fairnessKey?: string } }[], taskQueue: string, polls: number): Promise<string[]> {
  const started: string[] = [];
  try {
    for (const t of tasks) {
      await client.workflow.start(probeWorkflowType, { taskQueue, workflowId: `${taskQueue}:${t.id}`, priority: t.priority, workflowExecutionTimeout: '1m' });
      started.push(`${taskQueue}:${t.id}`);
      // A start reaches the queue a moment later, and the history service hands its tasks to
      // matching concurrently: under load a later start can arrive first. Each start waits for
      // the one before, so the queue's arrival order is this order and the handed-out order says
      // what the matcher did with it.
      await untilBacklogHolds(client, taskQueue, started.length);
    }
    const order: string[] = [];
    for (let i = 0; i < polls; i++) {
      const task = await client.withDeadline(Date.now() + pollMs, () =>
        client.workflowService.pollWorkflowTaskQueue({ namespace: client.options.namespace, taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL }, identity: 'durable-jobs flow-control probe' }),
      );
      order.push((task.workflowExecution?.workflowId ?? '').slice(taskQueue.length + 1));
    }
    return order;
  } finally {
    await Promise.all(started.map((id) => client.workflow.getHandle(id).terminate('durable-jobs flow-control probe').catch(() => undefined)));
  }
}

/** Waits (at most {@link pollMs}) until the server counts `n` tasks in the queue's workflow backlog. */
async function untilBacklogHolds(client: Client, taskQueue: string, n: number): Promise<void> {
  const deadline = Date.now() + pollMs;
  while (Date.now() < deadline) {
    const described = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      includeTaskQueueStatus: true,
    });
    // The live hint of the partition (the reported stats are cached for seconds).
    if (Number(described.taskQueueStatus?.backlogCountHint ?? 0) >= n) return;
    await sleep(50);
  }
  throw new Error(`the probe's ${n} tasks did not reach task queue ${taskQueue} within ${pollMs / 1000} s`);
}

/**
 * Checks what the server does for flow control on `taskQueue` (partitions) and, with one partition,
 * probes its matcher on two fresh queues (a priority probe and a fairness probe: seven short
 * workflows, terminated), then records the outcome for {@link readFlowControl}. About 0.2–0.6 s on
 * the dev server.
 */
export async function checkFlowControl(client: Client, taskQueue: string): Promise<FlowControlSupport> {
  const probe = `${taskQueue}:flow-control-probe-${randomUUID().slice(0, 8)}`;
  const partitions = Math.max(await partitionsOf(client, taskQueue), await partitionsOf(client, `${probe}-p`));
  // Across partitions the order is the partitions' draw, not the matcher's: only one partition tells.
  let priority: FlowControlSupport['priority'] = 'unknown';
  let fairness: FlowControlSupport['fairness'] = 'unknown';
  if (partitions === 1) {
    // Priority: a low-priority task first, then a high one; the new matcher hands out the high one first.
    const priorityOrder = await handedOut(client, [{ id: 'low', priority: { priorityKey: 5 } }, { id: 'high', priority: { priorityKey: 1 } }], `${probe}-p`, 1);
    priority = priorityOrder[0] === 'high' ? 'on' : 'off';
    // Fairness: four tasks of key a, then one of key b; with fairness, b is among the first two.
    const fairTasks = [...[0, 1, 2, 3].map((i) => ({ id: `a${i}`, priority: { fairnessKey: 'a' } })), { id: 'b', priority: { fairnessKey: 'b' } }];
    fairness = (await handedOut(client, fairTasks, `${probe}-f`, 2)).includes('b') ? 'on' : 'off';
  }
  const support: FlowControlSupport = { checkedAt: new Date().toISOString(), taskQueue, partitions, priority, fairness };
  await record(client, support).catch(() => undefined);
  return support;
}

/** Records a check in the memo of a workflow started and terminated at once (on a queue nobody serves). */
async function record(client: Client, support: FlowControlSupport): Promise<void> {
  const handle = await client.workflow.start(probeWorkflowType, {
    taskQueue: `${support.taskQueue}:flow-control-record`,
    workflowId: flowControlRecordId(support.taskQueue),
    memo: { [memoKey]: support },
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    workflowExecutionTimeout: '1m',
  });
  await handle.terminate('durable-jobs flow-control check recorded');
}

/** The last recorded check of `taskQueue`, if a worker or `jobctl doctor` made one. */
export async function readFlowControl(client: Client, taskQueue: string): Promise<FlowControlSupport | undefined> {
  try {
    const described = await client.workflow.getHandle(flowControlRecordId(taskQueue)).describe();
    return (described.memo?.[memoKey] as FlowControlSupport | undefined) ?? undefined;
  } catch {
    return undefined;
  }
}
