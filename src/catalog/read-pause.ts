import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { jobPauseMemoKey, pauseRecordId, type JobPause } from './job-pause';

/**
 * A job type's pause, if it is paused: the memo of its open pause record, read with one describe
 * (strongly consistent; no worker needed). What every start of a job (enqueue, redrive) checks.
 */
export async function readJobPause(client: Client, taskQueue: string, type: string): Promise<JobPause | undefined> {
  try {
    const description = await client.workflow.getHandle(pauseRecordId(taskQueue, type)).describe();
    if (description.status.name !== 'RUNNING') return undefined;
    return description.memo?.[jobPauseMemoKey] as JobPause | undefined;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
