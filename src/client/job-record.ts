import type { WorkflowExecutionDescription } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import { jobMaxAttempts } from '../jobs/definition';
import { definitionForWorkflowType } from '../jobs/registry';

/**
 * Where a job is in its life; see docs/job-lifecycle.md.
 * - `scheduled`: enqueued with a delay that has not yet passed
 * - `running`: an attempt is due or in progress
 * - `retrying`: an attempt failed and the next one waits on the retry schedule
 * - `completed`, `failed`, `cancelled`, `terminated`, `timed-out`: final
 */
export type JobStatus = 'scheduled' | 'running' | 'retrying' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed-out';

/** Why a job's latest attempt, or the job, failed. */
export interface JobError {
  /** The namespaced error type, e.g. `jobs:smtp-rejected`, when the failure has one. */
  type?: string;
  /** The failure's message. */
  message: string;
}

/** A job, read back from Temporal (describe, pending activities, history); nothing else stores it. */
export interface JobRecord {
  /** The job ID, which is the workflow ID. */
  id: string;
  /** The job type, e.g. `send-email`. */
  type: string;
  /** The payload the job was enqueued with. */
  payload: unknown;
  /** Where the job is in its life. */
  status: JobStatus;
  /** Attempts begun so far by the job's current (or last) activity. */
  attempts: number;
  /** Attempts the job type allows in all. */
  maxAttempts: number;
  /** When the job was enqueued (ISO 8601). */
  createdAt: string;
  /** When the job completed (ISO 8601), if it did. */
  processedAt?: string;
  /** When the job failed for good (ISO 8601), if it did. */
  failedAt?: string;
  /** The final failure, or the last attempt's failure while retrying. */
  error?: JobError;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type ProtoFailure = temporal.api.failure.v1.IFailure;
type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** What {@link toJobRecord} reads. */
export interface JobRecordSources {
  description: WorkflowExecutionDescription;
  events: HistoryEvent[];
  /** The payload, decoded from the start event's input. */
  payload: unknown;
  /** The current time, for telling `scheduled` from `running`. */
  now: Date;
}

/** Builds a job record from what Temporal says about the job's workflow. */
export function toJobRecord({ description, events, payload, now }: JobRecordSources): JobRecord {
  const definition = definitionForWorkflowType(description.type);
  const pending = description.raw.pendingActivities?.at(-1) ?? undefined;
  const closeTime = description.closeTime?.toISOString();
  const status = statusOf(description, pending, now);
  const record: JobRecord = {
    id: description.workflowId,
    type: definition?.type ?? description.type,
    payload,
    status,
    attempts: pending ? attemptsBegun(pending) : lastStartedAttempt(events),
    maxAttempts: definition ? jobMaxAttempts(definition) : 0,
    createdAt: description.startTime.toISOString(),
  };
  if (status === 'completed') record.processedAt = closeTime;
  if (status === 'failed' || status === 'timed-out' || status === 'terminated') record.failedAt = closeTime;
  const error = pending?.lastFailure ? toJobError(pending.lastFailure) : closingError(events);
  if (error && status !== 'completed') record.error = error;
  return record;
}

function statusOf(description: WorkflowExecutionDescription, pending: PendingActivity | undefined, now: Date): JobStatus {
  switch (description.status.name) {
    case 'COMPLETED':
      return 'completed';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    case 'TERMINATED':
      return 'terminated';
    case 'TIMED_OUT':
      return 'timed-out';
    default:
      if (description.executionTime && description.executionTime > now && description.historyLength <= 1) return 'scheduled';
      if (pending?.lastFailure && !isStarted(pending)) return 'retrying';
      return 'running';
  }
}

/**
 * Whether the pending activity's current attempt is running, as opposed to waiting out a retry
 * delay. Servers report the wait differently (SCHEDULED, or a completion newer than the last start),
 * so both are checked.
 */
function isStarted(pending: PendingActivity): boolean {
  const state = pending.state as unknown;
  if (state !== 2 && state !== 'PENDING_ACTIVITY_STATE_STARTED') return false;
  const started = optionalTsToMs(pending.lastStartedTime);
  const completed = optionalTsToMs(pending.lastAttemptCompleteTime);
  return started === undefined || completed === undefined || started > completed;
}

function attemptsBegun(pending: PendingActivity): number {
  const attempt = pending.attempt ?? 1;
  return isStarted(pending) ? attempt : attempt - 1;
}

function lastStartedAttempt(events: HistoryEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const attempt = events[i]?.activityTaskStartedEventAttributes?.attempt;
    if (attempt) return attempt;
  }
  return 0;
}

function closingError(events: HistoryEvent[]): JobError | undefined {
  const last = events.at(-1);
  if (!last) return undefined;
  if (last.workflowExecutionFailedEventAttributes?.failure) return toJobError(last.workflowExecutionFailedEventAttributes.failure);
  if (last.workflowExecutionTerminatedEventAttributes) {
    return { type: 'terminated', message: last.workflowExecutionTerminatedEventAttributes.reason || 'terminated' };
  }
  if (last.workflowExecutionTimedOutEventAttributes) return { type: 'timed-out', message: 'the job ran out of time' };
  return undefined;
}

/** The first application (or timeout) failure in the chain is the activity's own error; wrappers above it say only "activity failed". */
function toJobError(failure: ProtoFailure): JobError {
  for (let f: ProtoFailure | null | undefined = failure; f; f = f.cause) {
    if (f.applicationFailureInfo) return withType(f.applicationFailureInfo.type, f.message);
    if (f.timeoutFailureInfo) return withType('timeout', f.message);
  }
  let inner = failure;
  while (inner.cause) inner = inner.cause;
  return { message: inner.message ?? '' };
}

function withType(type: string | null | undefined, message: string | null | undefined): JobError {
  return type ? { type, message: message ?? '' } : { message: message ?? '' };
}
