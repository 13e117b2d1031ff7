import type { WorkflowExecutionDescription } from '@temporalio/client';
import { maskSensitive, scrubSensitive, sensitiveMemoKey } from '../catalog/sensitive';
import type { temporal } from '@temporalio/proto';
import type { Catalog } from '../catalog/catalog';
import { jobMaxAttempts } from '../catalog/define-job';
import { jobTypeSearchAttribute } from '../catalog/job-type-attribute';
import { fairnessOfPriority } from '../catalog/fairness';
import { jobProtocolOf } from '../shared/job-protocol';
import { stallReason, type FailureLike } from '../shared/stall';
import type { CancelRequestedInput, JobState } from '../workflow-kit/job-state';
import type { JobError, JobRecord, JobStatus } from './job-record-shape';
import { attemptsInTail, isAttemptRunning, isLocalRetryWaiting, localActivityFailure, pendingAttemptsBegun } from '../shared/attempts';

export type { JobError, JobRecord, JobStatus } from './job-record-shape';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type ProtoFailure = temporal.api.failure.v1.IFailure;
type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** What a job record reads of its workflow's description: the SDK's, or one jobctl's HTTP reads build from the same message. */
export type JobDescription = Pick<WorkflowExecutionDescription, 'workflowId' | 'type' | 'status' | 'closeTime' | 'startTime' | 'executionTime' | 'historyLength' | 'memo' | 'typedSearchAttributes' | 'raw'>;

/** What {@link toJobRecord} reads. */
export interface JobRecordSources {
  description: JobDescription;
  /** The newest events of the latest run, newest first: enough to reach the last activity start. */
  tail: HistoryEvent[];
  /** The payload, decoded from the first run's start event. */
  payload: unknown;
  /** When the job was enqueued: the first run's start. @defaultValue the latest run's start */
  createdAt?: Date;
  /** What the job reports about itself: its query while running, its memo once closed. */
  state?: JobState;
  /** The current time, for telling `scheduled` from `running`. */
  now: Date;
  /** The job types, for the attempts limit of jobs too old to report it themselves. @defaultValue none */
  catalog?: Pick<Catalog, 'byWorkflowType'>;
}

/**
 * A job's type: what it was started with (the JobType search attribute), else the catalog's type
 * of its workflow, else the workflow type itself. The one place that names a job's type.
 */
export function jobTypeOf(workflow: Pick<WorkflowExecutionDescription, 'type' | 'typedSearchAttributes'>, catalog?: Pick<Catalog, 'byWorkflowType'>): string {
  const started = workflow.typedSearchAttributes?.get(jobTypeSearchAttribute);
  return typeof started === 'string' && started !== '' ? started : (catalog?.byWorkflowType(workflow.type)?.type ?? workflow.type);
}

/**
 * The attempts limit the record reports: what the job says of its current preset, else (a job
 * from before it said so) the catalog's definition, else the pending activity's retry policy.
 */
function maxAttemptsOf(description: JobDescription, state: JobState | undefined, pending: PendingActivity | undefined, catalog?: Pick<Catalog, 'byWorkflowType'>): number {
  const reported = state?.maxAttempts?.[state.preset];
  if (reported !== undefined) return reported;
  const definition = catalog?.byWorkflowType(description.type);
  if (definition) return jobMaxAttempts(definition, state?.preset ?? definition.mainPreset);
  return pending?.maximumAttempts ?? 0;
}

/** Builds a job record from what Temporal says about the job's workflow. */
export function toJobRecord({ description, tail, payload, createdAt, state, now, catalog }: JobRecordSources): JobRecord {
  const pending = description.raw.pendingActivities?.at(-1) ?? undefined;
  const closeTime = description.closeTime?.toISOString();
  const waiting = pending ? undefined : state?.configWait;
  const running = description.status.name === 'RUNNING';
  const limitWait = running && !pending ? state?.limitWait : undefined;
  const status = (waiting || (!pending && isLocalRetryWaiting(tail))) && running ? 'retrying' : statusOf(description, pending, now);
  const type = jobTypeOf(description, catalog);
  // Sensitive fields as the job's start recorded them (readers without the catalog). A start since
  // protocol 2 records them whenever its type has any, so none recorded is none, and the catalog
  // (which jobctl loads only when asked: its zod and job modules) is left alone; earlier starts: as the catalog says.
  const recorded = description.memo?.[sensitiveMemoKey];
  const sensitive = Array.isArray(recorded) ? (recorded as string[]) : jobProtocolOf(description.memo) >= 2 ? undefined : catalog?.byWorkflowType(description.type)?.sensitive;
  const record: JobRecord = {
    id: description.workflowId,
    type,
    payload: maskSensitive(payload, sensitive),
    status,
    // A job waiting for its concurrency slot has run only the request for it, which is no attempt of a step.
    attempts: limitWait ? 0 : pending ? pendingAttemptsBegun(pending) : closedAttempts(tail, state),
    maxAttempts: maxAttemptsOf(description, state, pending, catalog),
    createdAt: (createdAt ?? description.startTime).toISOString(),
  };
  if (status === 'completed') record.processedAt = closeTime;
  if (status === 'failed' || status === 'timed-out' || status === 'terminated') record.failedAt = closeTime;
  const error = pending?.lastFailure ? toJobError(pending.lastFailure) : (closingError(tail) ?? openError(status, tail, state, waiting));
  if (error && status !== 'completed') record.error = { ...error, message: scrubSensitive(error.message, payload, sensitive) };
  if (state) {
    record.step = state.step;
    record.steps = state.steps;
    if (state.progress) record.progress = state.progress;
    if (state.compensation) record.compensation = state.compensation;
    if (state.run !== undefined) record.run = state.run;
  }
  const fairness = fairnessOfPriority(description.raw.workflowExecutionInfo?.priority);
  if (fairness) record.fairness = fairness;
  if (limitWait) record.limitWait = { key: limitWait.key, limit: limitWait.limit, since: limitWait.since };
  if (state?.paused && description.status.name === 'RUNNING') record.paused = state.paused;
  if (waiting && status === 'retrying') record.configWait = { since: waiting.since, nextCheckAt: waiting.nextCheckAt, checks: waiting.checks };
  return record;
}

/**
 * Why a job that is retrying, or was cancelled while it waited to retry, last failed when no
 * activity of it is pending: what its canceller saw, its wait for a setting, or its local
 * activity's latest failed attempt.
 */
function openError(status: JobStatus, tail: HistoryEvent[], state: JobState | undefined, waiting: JobState['configWait']): JobError | undefined {
  if (status !== 'retrying' && status !== 'cancelled') return undefined;
  const known = status === 'cancelled' ? state?.cancelRequested?.error : waiting?.error;
  if (known) return known;
  const local = localActivityFailure(tail);
  return local ? toJobError(local) : undefined;
}

/**
 * What a job's activity had done when it was cancelled, for the `cancelRequested` signal: the
 * attempts begun and the last failure, as the pending activity reports them; `undefined` when no
 * activity is pending.
 */
export function cancelReport(description: Pick<JobDescription, 'raw'>): CancelRequestedInput | undefined {
  const pending = description.raw.pendingActivities?.at(-1) ?? undefined;
  if (!pending) return undefined;
  const report: CancelRequestedInput = { attempts: pendingAttemptsBegun(pending) };
  if (pending.lastFailure) report.error = toJobError(pending.lastFailure);
  return report;
}

/**
 * Attempts of a job no activity of which is pending: those its history records, or, for a job
 * cancelled while it waited to retry (whose history records no start of that activity), those its
 * canceller saw, whichever is more.
 */
function closedAttempts(tail: HistoryEvent[], state: JobState | undefined): number {
  return Math.max(attemptsInTail(tail), state?.cancelRequested?.attempts ?? 0);
}

/** Temporal's closed execution statuses, as job statuses: the one mapping of the two. */
const closedStatuses: Record<string, JobStatus> = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed-out',
};

/**
 * A Temporal execution status (`RUNNING`, `TIMED_OUT`, …) as a job status: the closed ones as
 * {@link JobStatus}, the rest lower-cased (`running`, `continued_as_new` → `continued-as-new`).
 */
export function jobStatusName(status: string): string {
  return closedStatuses[status] ?? status.toLowerCase().replace(/_/g, '-');
}

function statusOf(description: JobDescription, pending: PendingActivity | undefined, now: Date): JobStatus {
  const closed = closedStatuses[description.status.name];
  if (closed) return closed;
  if (description.executionTime && description.executionTime > now && description.historyLength <= 1) return 'scheduled';
  if (pending?.lastFailure && !isAttemptRunning(pending)) return 'retrying';
  return 'running';
}

function closingError(tail: HistoryEvent[]): JobError | undefined {
  const last = tail[0];
  if (!last) return undefined;
  if (last.workflowExecutionFailedEventAttributes?.failure) return toJobError(last.workflowExecutionFailedEventAttributes.failure);
  if (last.workflowExecutionTerminatedEventAttributes) {
    return { type: 'terminated', message: last.workflowExecutionTerminatedEventAttributes.reason || 'terminated' };
  }
  if (last.workflowExecutionTimedOutEventAttributes) return { type: 'timed-out', message: 'the job ran out of time' };
  return undefined;
}

/** A failure as a job error: the first application (or timeout) failure in the chain is the activity's own error; wrappers above it say only "activity failed". */
export function toJobError(failure: ProtoFailure): JobError {
  const error = ownError(failure);
  const stall = stallReason(failure as FailureLike);
  return stall ? { ...error, stall } : error;
}

function ownError(failure: ProtoFailure): JobError {
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
