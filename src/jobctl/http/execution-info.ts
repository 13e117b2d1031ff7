// A workflow's execution info as the SDK's client decodes it (executionInfoFromRaw, which the HTTP
// reads cannot load: its module loads the gRPC client), from the same message: status by name,
// times as Dates, memo through the codecs, search attributes typed.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { Payload } from '@temporalio/common';
import { decodeTypedSearchAttributes, optionalTsToDate, requiredTsToDate } from '../../shared/sdk-internals';
import { decodePayload, type PayloadDecoding } from '../../client/decode';
import { HttpApiUnavailable } from './http-api';

/** What the job record and the job list read of an execution. */
export type ExecutionInfo = Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'type' | 'status' | 'historyLength' | 'startTime' | 'executionTime' | 'closeTime' | 'memo' | 'typedSearchAttributes'>;

/** The SDK's names of Temporal's execution statuses (WorkflowExecutionStatusName), by enum number. */
const statusNames: Record<number, WorkflowExecutionInfo['status']['name']> = {
  0: 'UNSPECIFIED',
  1: 'RUNNING',
  2: 'COMPLETED',
  3: 'FAILED',
  4: 'CANCELLED',
  5: 'TERMINATED',
  6: 'CONTINUED_AS_NEW',
  7: 'TIMED_OUT',
  8: 'PAUSED',
};

/** {@link ExecutionInfo} of a message; throws {@link HttpApiUnavailable} for one without the execution (not an answer to read). */
export async function executionInfo(info: temporal.api.workflow.v1.IWorkflowExecutionInfo | null | undefined, decoding: PayloadDecoding): Promise<ExecutionInfo> {
  if (!info?.execution?.workflowId || !info.type) throw new HttpApiUnavailable('an execution came without its workflow ID or type');
  const status = info.status ?? 0;
  return {
    workflowId: info.execution.workflowId,
    runId: info.execution.runId ?? '',
    type: info.type.name ?? '',
    status: { code: status, name: statusNames[status] ?? 'UNKNOWN' },
    historyLength: Number(info.historyLength ?? 0),
    startTime: requiredTsToDate(info.startTime, 'startTime'),
    executionTime: optionalTsToDate(info.executionTime),
    closeTime: optionalTsToDate(info.closeTime),
    memo: info.memo?.fields ? Object.fromEntries(await Promise.all(Object.entries(info.memo.fields).map(async ([key, payload]) => [key, await decodePayload(decoding, payload as Payload)]))) : undefined,
    typedSearchAttributes: decodeTypedSearchAttributes(info.searchAttributes?.indexedFields as Parameters<typeof decodeTypedSearchAttributes>[0]),
  };
}
