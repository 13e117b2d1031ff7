import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { registry, type JobType } from '../jobs/registry';
import { payloadHash } from '../shared/payload-hash';

/** The `JobType` search attribute: lets `jobctl list` and the Web UI select jobs by type. A stored contract. */
export const jobTypeSearchAttribute = defineSearchAttributeKey('JobType', SearchAttributeType.KEYWORD);

/** Memo key of the payload hash that tells a duplicate enqueue from an ID conflict. A stored contract. */
export const payloadHashMemoKey = 'payloadHash';

/** What {@link startJob} starts. */
export interface StartJobInput {
  type: JobType;
  id: string;
  /** The payload, already validated against the type's schema. */
  payload: unknown;
  taskQueue: string;
  /** Wait before the first attempt, in ms. @defaultValue 0 */
  delayMs?: number;
  /**
   * `enqueue` never reuses an ID (for the namespace's retention period); `redrive` may start an ID
   * again only if its last run failed, was cancelled, terminated or timed out.
   */
  mode: 'enqueue' | 'redrive';
  /**
   * Ask the server to hand the job's first workflow task straight back to a worker in this process
   * (eager workflow start). Needs a client built on that worker's `NativeConnection`.
   * @defaultValue false
   */
  eager?: boolean;
}

/** Starts a job's workflow; the one place that sets its ID policy, memo, search attributes and summary. */
export function startJob(client: Client, input: StartJobInput): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const definition = registry[input.type];
  return client.workflow.start(definition.workflowType, {
    taskQueue: input.taskQueue,
    workflowId: input.id,
    args: [input.payload],
    // Starting an ID that is running fails, which is how a duplicate is detected.
    workflowIdConflictPolicy: 'FAIL',
    workflowIdReusePolicy: input.mode === 'redrive' ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
    startDelay: input.delayMs || undefined,
    memo: { [payloadHashMemoKey]: payloadHash(input.payload) },
    typedSearchAttributes: [{ key: jobTypeSearchAttribute, value: input.type }],
    staticSummary: (definition.summary as ((p: unknown) => string) | undefined)?.(input.payload) ?? input.type,
    requestEagerStart: (input.eager && !input.delayMs) || undefined,
  });
}
