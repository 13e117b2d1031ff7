import type { Client, WorkflowHandleWithFirstExecutionRunId, WorkflowStartOptions } from '@temporalio/client';
import type { Priority, SearchAttributePair } from '@temporalio/common';
import type { JobDefinition } from './define-job';
import { jobFairness, jobPriority } from './fairness';
import type { JobFairness } from './job-fairness';
import { concurrencyKeyMemoKey, concurrencyKeyOf } from './concurrency-limit';
import { createdAtMemoKey } from './created-at';
import { jobTypeSearchAttribute } from './job-type-attribute';
import { taskQueueFor } from './task-queues';
import { jobPauseMemoKey, type JobPause } from './job-pause';
import { payloadHash } from '../shared/payload-hash';
import { jobProtocolMemo } from '../shared/job-protocol';
import { jobOutlineMemoKey, jobOutlineOf } from './job-outline';
import { maskSensitive, sensitiveMemoKey } from './sensitive';

export { jobTypeSearchAttribute };

/** Memo key of the payload hash that tells a duplicate enqueue from an ID conflict. A stored contract. */
export const payloadHashMemoKey = 'payloadHash';

/** What every start of a job shares, whether enqueued, redriven or started by a schedule. */
export interface JobStartInput {
  /** The job type's definition, from the catalog. */
  definition: JobDefinition;
  /** The payload, already validated against the type's schema. */
  payload: unknown;
  /** The deployment's shared task queue; the job starts on its type's queue ({@link taskQueueFor}). */
  taskQueue: string;
  /** The job's priority, 1 (highest) to 5 (lowest). @defaultValue unset: Temporal's default, 3 */
  priority?: number;
  /** The job's fairness key and weight, already validated. @defaultValue what the type's `fairness` derives from the payload */
  fairness?: JobFairness;
}

/** What {@link startJob} starts. */
export interface StartJobInput extends JobStartInput {
  id: string;
  /** Wait before the first attempt, in ms. @defaultValue 0 */
  delayMs?: number;
  /** When the job was first enqueued, for a redrive (ISO 8601). @defaultValue this start */
  createdAt?: string;
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
  /** The type's pause, when it is paused: the job starts knowing it and waits for the resume (src/workflow-kit/pause-gate.ts). @defaultValue not paused */
  paused?: JobPause;
}

/** The workflow start options of a job that do not depend on how it is started: the one place that sets them. */
export function jobStartOptions(input: JobStartInput): {
  workflowType: string;
  taskQueue: string;
  args: [unknown];
  memo: Record<string, unknown>;
  typedSearchAttributes: SearchAttributePair[];
  staticSummary: string;
  priority?: Priority;
} {
  const { definition } = input;
  const fairness = input.fairness ?? jobFairness(definition, input.payload);
  const concurrencyKey = concurrencyKeyOf(definition, input.payload, fairness);
  return {
    workflowType: definition.workflowType,
    taskQueue: taskQueueFor(input.taskQueue, definition),
    args: [input.payload],
    memo: {
      ...jobProtocolMemo(),
      // What the record derives a completed job's final state from, so the job need not write it.
      [jobOutlineMemoKey]: jobOutlineOf(definition),
      [payloadHashMemoKey]: payloadHash(input.payload),
      ...(concurrencyKey === undefined ? {} : { [concurrencyKeyMemoKey]: concurrencyKey }),
      // Readers without the catalog (jobctl anywhere, the Web UI's memo view) mask them too.
      ...(definition.sensitive?.length ? { [sensitiveMemoKey]: [...definition.sensitive] } : {}),
    },
    typedSearchAttributes: [{ key: jobTypeSearchAttribute, value: definition.type }],
    // The summary is shown in clear by the Web UI: it is made from the payload with its sensitive fields masked.
    staticSummary: (definition.summary as ((p: unknown) => string) | undefined)?.(maskSensitive(input.payload, definition.sensitive)) ?? definition.type,
    // Lower keys go first in Temporal, as in ours; activities inherit the workflow's priority,
    // fairness key and weight included.
    priority: jobPriority(input.priority, fairness),
  };
}

/** The workflow type and start options of a job: its ID policy plus {@link jobStartOptions}, as every transport starts it. */
export function jobWorkflowStart(input: StartJobInput): { workflowType: string; options: WorkflowStartOptions } {
  const { workflowType, memo, ...options } = jobStartOptions(input);
  const started = input.createdAt ? { ...memo, [createdAtMemoKey]: input.createdAt } : memo;
  return {
    workflowType,
    options: {
      ...options,
      memo: input.paused ? { ...started, [jobPauseMemoKey]: input.paused } : started,
      workflowId: input.id,
      // Starting an ID that is running fails, which is how a duplicate is detected.
      workflowIdConflictPolicy: 'FAIL',
      workflowIdReusePolicy: input.mode === 'redrive' ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
      startDelay: input.delayMs || undefined,
      requestEagerStart: (input.eager && !input.delayMs) || undefined,
    },
  };
}

/** Starts a job's workflow ({@link jobWorkflowStart}). */
export function startJob(client: Client, input: StartJobInput): Promise<WorkflowHandleWithFirstExecutionRunId> {
  const { workflowType, options } = jobWorkflowStart(input);
  return client.workflow.start(workflowType, options);
}
