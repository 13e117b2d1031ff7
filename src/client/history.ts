import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { decodePayload } from './decode';
import { attemptsEventId } from '../shared/attempts';

/** One event of a workflow history, as the service returns it. */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** gRPC UNIMPLEMENTED: the server (e.g. the time-skipping test server) lacks the reverse-history call. */
const GRPC_UNIMPLEMENTED = 12;

/** Events read per page from the end of a history. */
const tailPageSize = 100;

export { firstEvent } from '../catalog/created-at';

/** The payload a job was enqueued with, decoded from its start event. */
export async function decodeStartInput(client: Client, event: HistoryEvent | undefined): Promise<unknown> {
  const input = event?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return input ? decodePayload(client, input) : undefined;
}

/**
 * The newest events of a run, newest first, read backwards page by page only until they reach the
 * activity start that the job record's attempts come from, so a long history is not fetched
 * whole. Servers without the reverse call get the forward history instead.
 */
export async function historyTail(client: Client, workflowId: string, runId: string): Promise<HistoryEvent[]> {
  const tail: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  try {
    do {
      const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: tailPageSize,
        nextPageToken,
      });
      tail.push(...(page.history?.events ?? []));
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
      const wanted = attemptsEventId(tail);
      if (wanted !== undefined && tail.some((e) => Number(e.eventId) === wanted)) break;
    } while (nextPageToken);
    return tail;
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_UNIMPLEMENTED)) throw err;
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    return [...(history.events ?? [])].reverse();
  }
}
