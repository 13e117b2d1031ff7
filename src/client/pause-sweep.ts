// Tells every open job of a type that its type was paused or resumed: one signal per job, oldest
// first, so that on resume the earliest enqueued are released first (the task queue then orders
// what waits by priority).
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { jobPausedSignalName, jobResumedSignalName, type JobPause } from '../catalog/job-pause';
import { quoteQueryValue } from './job-list';
import { setJobActivitiesPaused } from './pause-activities';

/** Signals sent at once during a sweep. */
const sweepConcurrency = 16;

/** The visibility query of a type's open jobs on the deployment's queues (on any queue, when they are not known). */
export function openJobsQuery(type: string, taskQueues: readonly string[] | undefined): string {
  const open = `JobType = ${quoteQueryValue(type)} AND ExecutionStatus = 'Running'`;
  return taskQueues ? `${open} AND TaskQueue IN (${taskQueues.map(quoteQueryValue).join(', ')})` : open;
}

/**
 * Sends `jobPaused` (with the pause) or `jobResumed` to every open job of the type that `reached`
 * does not hold yet, adds each it reached to `reached`, and returns how many. A job that closed
 * meanwhile is skipped. Signals are idempotent for the job: a second pause signal only updates
 * what it reports (but a signal that lands as a job completes costs it a workflow task, so a second
 * sweep skips the jobs the first one reached). Each job's activities that are scheduled but not
 * running are paused with it, and unpaused with the resume (pause-activities.ts).
 */
export async function sweepOpenJobs(client: Client, type: string, taskQueues: readonly string[] | undefined, pause: JobPause | undefined, done: Set<string> = new Set()): Promise<number> {
  const open = new Map<string, number>();
  for await (const w of client.workflow.list({ query: openJobsQuery(type, taskQueues) })) {
    if (done.has(w.workflowId)) continue;
    const started = w.startTime.getTime();
    open.set(w.workflowId, Math.min(started, open.get(w.workflowId) ?? started));
  }
  const ids = [...open.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  let reached = 0;
  let next = 0;
  const send = async (id: string) => {
    const handle = client.workflow.getHandle(id);
    try {
      if (pause) await handle.signal(jobPausedSignalName, pause);
      else await handle.signal(jobResumedSignalName);
      // After the signal: from then on the job schedules no step, so what is scheduled now is all there is to hold.
      await setJobActivitiesPaused(client, id, type, pause !== undefined);
      reached += 1;
      done.add(id);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(sweepConcurrency, ids.length) }, async () => {
      while (next < ids.length) await send(ids[next++]!);
    }),
  );
  return reached;
}
