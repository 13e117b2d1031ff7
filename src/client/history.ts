import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { readTail, tailPageSize } from './record-assembly';

/** One event of a workflow history, as the service returns it. */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** gRPC UNIMPLEMENTED: the server (e.g. the time-skipping test server) lacks the reverse-history call. */
const GRPC_UNIMPLEMENTED = 12;

export { firstEvent } from '../catalog/created-at';

/** The newest events of a run, newest first ({@link readTail}); servers without the reverse call get the forward history instead. */
export async function historyTail(client: Client, workflowId: string, runId: string, toLastStep = false): Promise<HistoryEvent[]> {
  try {
    return await readTail<Uint8Array>(async (nextPageToken) => {
      const page = await client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: tailPageSize,
        nextPageToken,
      });
      return { events: page.history?.events ?? [], next: page.nextPageToken?.length ? page.nextPageToken : undefined };
    }, toLastStep);
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === GRPC_UNIMPLEMENTED)) throw err;
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    return [...(history.events ?? [])].reverse();
  }
}
