import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/** When one job started running and when it closed (ms since the epoch, server clock), and how. */
export interface JobTimes {
  /** The workflow's start event: the server accepted the start. */
  createdAt: number;
  /** The first workflow task's start: a worker picked the job up. */
  startedAt: number;
  /** The workflow's close event. */
  closedAt: number;
  /** Whether it completed (rather than failed, timed out, …). */
  completed: boolean;
  /** Events in its history: what the server stored for it. */
  events: number;
}

/** Waits until every workflow on the task queue has closed; resolves with the time it noticed. */
export async function waitForAll(client: Client, taskQueue: string, jobs: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { count } = await client.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus != 'Running'`);
    if (count >= jobs) return;
    if (Date.now() > deadline) throw new Error(`only ${count} of ${jobs} jobs closed within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function ms(t: temporal.api.history.v1.IHistoryEvent['eventTime']): number {
  return Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
}

/** Reads each job's history (after the timed window, so it costs the measurement nothing). */
export async function collectTimes(client: Client, ids: string[], parallel = 16): Promise<Map<string, JobTimes>> {
  const times = new Map<string, JobTimes>();
  let next = 0;
  const reader = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const started = events.find((e) => e.workflowTaskStartedEventAttributes);
      const last = events[events.length - 1];
      times.set(id, {
        createdAt: ms(events[0]?.eventTime),
        startedAt: ms(started?.eventTime),
        closedAt: ms(last?.eventTime),
        completed: last?.workflowExecutionCompletedEventAttributes != null,
        events: events.length,
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, reader));
  return times;
}

/** A plain client for the bench's own reads (count, histories). */
export async function observerClient(address: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address });
  return { client: new Client({ connection, namespace: 'default' }), close: () => connection.close() };
}
