// Job metrics emitted from workflow code through the SDK's workflow metric meter. The meter emits
// nothing while a workflow replays and adds no commands, so these calls never affect determinism.
import { ActivityFailure, TemporalFailure, TimeoutFailure, log, metricMeter, workflowInfo, type ActivityInput } from '@temporalio/workflow';
import { jobTypeSearchAttribute } from '../catalog/job-type-attribute';
import { jobMetrics, stallErrorType, type JobMetric } from '../shared/job-metrics';
import { stallReason, type FailureLike } from '../shared/stall';
import { RunLocal } from './run-local';

/** Adds one to a job counter, tagged with the job type and `tags`. */
export function countJob(metric: JobMetric, jobType: string, tags: Record<string, string> = {}): void {
  metricMeter.createCounter(metric.name, metric.unit, metric.description).add(1, { job_type: jobType, ...tags });
}

/** The running workflow's job type. */
const runJobType = new RunLocal<string>('jobType');

/**
 * Reads the job type once, when the workflow starts, from the `JobType` search attribute the job
 * was started with, and keeps it for every log line and metric of the run. `undefined` for a
 * workflow that is not a job (a DLQ).
 */
export function startJobReport(): string | undefined {
  const value = workflowInfo().typedSearchAttributes.get(jobTypeSearchAttribute);
  const jobType = typeof value === 'string' && value !== '' ? value : undefined;
  runJobType.set(jobType);
  return jobType;
}

/** The job type of the running workflow, if it is a job (see {@link startJobReport}). */
export function currentJobType(): string | undefined {
  return runJobType.get();
}

/** Records the job's duration from enqueue (the start of its first run, delay included) to now. */
export function recordJobDuration(jobType: string, outcome: 'completed' | 'failed' | 'cancelled'): void {
  const { name, unit, description } = jobMetrics.duration;
  const seconds = Math.max(0, (Date.now() - workflowInfo().startTime.getTime()) / 1000);
  metricMeter.createHistogram(name, 'float', unit, description).record(seconds, { job_type: jobType, outcome });
}

/**
 * Counts the stall that ended an activity's last attempt. Stalls of earlier attempts are counted
 * by the next attempt (the activity interceptor); the last one has no next attempt, so the
 * workflow, which receives the timeout, counts it.
 */
export function countFinalStall(input: ActivityInput, err: unknown): void {
  const jobType = currentJobType();
  if (!jobType || !(err instanceof ActivityFailure)) return;
  const reason = stallReason(toFailureLike(err.cause));
  if (!reason) return;
  countJob(jobMetrics.stalled, jobType, { reason });
  countJob(jobMetrics.attemptFailed, jobType, { error_type: stallErrorType(reason) });
  const { workflowId, runId } = workflowInfo();
  log.warn('job:stalled', { jobId: workflowId, jobType, runId, activityType: input.activityType, stall: reason, lastAttempt: true });
}

/** The SDK's failure classes, seen through the shape {@link stallReason} reads. */
function toFailureLike(err: unknown): FailureLike | undefined {
  if (!(err instanceof TemporalFailure)) return undefined;
  return {
    message: err.message,
    timeoutFailureInfo: err instanceof TimeoutFailure ? { timeoutType: err.timeoutType } : undefined,
    applicationFailureInfo: err.name === 'ApplicationFailure' ? { type: (err as TemporalFailure & { type?: string }).type } : undefined,
    cause: toFailureLike(err.cause),
  };
}
