import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/**
 * Memo key of when a redriven job was first enqueued (ISO 8601): a redrive starts a new execution
 * under the same ID, whose own start is the redrive's time. A stored contract.
 */
export const createdAtMemoKey = 'jobCreatedAt';

/** The first enqueue time that a redrive carried in a workflow's memo, if there is a valid one. */
export function createdAtFromMemo(memo: Record<string, unknown> | undefined): Date | undefined {
  const value = memo?.[createdAtMemoKey];
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * A job's first enqueue: the one derivation of `createdAt`. What a redrive carried in the memo,
 * else the start event of the job's first run, else (a visibility row, no event read) its start.
 */
export function createdAtOf(
  workflow: { memo?: Record<string, unknown>; startTime: Date },
  firstStart?: temporal.api.history.v1.IHistoryEvent,
): Date {
  const time = firstStart?.eventTime;
  return createdAtFromMemo(workflow.memo) ?? (time ? new Date(Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6)) : workflow.startTime);
}

/** The first event of a run: its start, with the input and the enqueue time. One small request, whatever the history's size. */
export async function firstEvent(client: Client, workflowId: string, runId: string): Promise<temporal.api.history.v1.IHistoryEvent | undefined> {
  const response = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  return response.history?.events?.[0] ?? undefined;
}

/** When a job was first enqueued, redrives included, read with two calls (describe, first event). */
export async function readCreatedAt(client: Client, id: string): Promise<Date> {
  const description = await client.workflow.getHandle(id).describe();
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
  return createdAtOf(description, await firstEvent(client, id, firstRunId));
}
