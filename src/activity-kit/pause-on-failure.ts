// An attempt that fails while its job type is paused must not be retried until the type resumes
// (a pause promises that no attempt starts and none uses up a retry). The job's pause gate holds
// steps that are not yet scheduled and the pause sweep pauses those waiting to be retried; this
// holds the rest: an attempt that was running when the pause came and then fails. Before its
// failure is reported, the attempt pauses its own activity with Temporal's activity pause (with the
// reason a resume unpauses), so the server schedules no retry until the resume.
import type { Context } from '@temporalio/activity';
import { isGrpcServiceError } from '@temporalio/client';
import { activityPauseReason } from '../catalog/job-pause';
import { readJobPauseCached, type JobPauseCache } from '../catalog/read-pause';

/** How long a worker trusts what it last read of a type's pause, in ms: a burst of failures reads it once. */
const pauseCacheMs = 1000;

const cache: JobPauseCache = new Map();

/**
 * Pauses this attempt's activity when its job type is paused; called as a retryable attempt
 * fails. Best effort: a lookup or pause that fails is logged and the failure goes on as it would
 * have (the job's gate still holds its later steps).
 */
export async function pauseRetryIfTypePaused(ctx: Context, taskQueue: string, jobType: string): Promise<void> {
  const execution = ctx.info.workflowExecution;
  if (!execution) return;
  try {
    if (!(await readJobPauseCached(cache, pauseCacheMs, ctx.client, taskQueue, jobType))) return;
    await ctx.client.workflowService.pauseActivity({
      namespace: ctx.info.workflowNamespace,
      execution,
      id: ctx.info.activityId,
      reason: activityPauseReason(jobType),
      identity: 'durable-jobs worker',
      requestId: `${execution.runId}:${ctx.info.activityId}:${ctx.info.attempt}`,
    });
    ctx.log.info('job:retry-paused', { attempt: ctx.info.attempt });
  } catch (err) {
    // UNIMPLEMENTED: a server without activity pause (before 1.27).
    if (isGrpcServiceError(err) && err.code === 12) return;
    ctx.log.warn('job:retry-pause-failed', { error: err instanceof Error ? err.message : String(err) });
  }
}
