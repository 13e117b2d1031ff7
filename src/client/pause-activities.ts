// The Temporal side of a pause for a job's regular activities. The job's pause gate holds each step
// before it is scheduled, but an activity already scheduled (waiting out a server-side retry delay,
// or in the queue's backlog) would start its next attempt without asking the workflow: a pause
// therefore also pauses those with Temporal's activity pause (they keep their attempt number and
// schedule), and a resume unpauses the ones it paused. An attempt that is running is left to
// finish; if it fails while its type is paused, the worker pauses it (src/activity-kit/interceptors.ts).
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { activityPauseReason } from '../catalog/job-pause';

const { PENDING_ACTIVITY_STATE_SCHEDULED } = temporal.api.enums.v1.PendingActivityState;

/**
 * gRPC codes of a pause or unpause that has nothing to do: the activity finished meanwhile
 * (NOT_FOUND), is not in a state to change (FAILED_PRECONDITION), or the server has no activity
 * pause (UNIMPLEMENTED: before Temporal 1.27, where a step in a retry delay is not held).
 */
const nothingToDo = new Set([5, 9, 12]);

async function ifStillThere(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (err) {
    if (isGrpcServiceError(err) && nothingToDo.has(err.code)) return false;
    throw err;
  }
}

/** Who pauses and unpauses, in the server's records. */
const identity = 'durable-jobs pause';

/**
 * Pauses the job's activities that are scheduled but not started (`pause` set), or unpauses the
 * ones a pause of its type paused (`pause` undefined); returns how many it changed. A job that
 * closed meanwhile has none.
 */
export async function setJobActivitiesPaused(client: Client, workflowId: string, type: string, paused: boolean): Promise<number> {
  const { namespace } = client.options;
  const reason = activityPauseReason(type);
  const description = await client.workflow.getHandle(workflowId).describe();
  if (description.status.name !== 'RUNNING') return 0;
  const execution = { workflowId, runId: description.runId };
  let changed = 0;
  for (const activity of description.raw.pendingActivities ?? []) {
    const id = activity.activityId;
    if (paused && !activity.paused && activity.state === PENDING_ACTIVITY_STATE_SCHEDULED) {
      if (await ifStillThere(() => client.workflowService.pauseActivity({ namespace, execution, id, reason, identity, requestId: `${description.runId}:${id}:${activity.attempt}` }))) changed += 1;
    } else if (!paused && activity.paused && activity.pauseInfo?.manual?.reason === reason) {
      if (await ifStillThere(() => client.workflowService.unpauseActivity({ namespace, execution, id, identity, resetAttempts: false, resetHeartbeat: false }))) changed += 1;
    }
  }
  return changed;
}
