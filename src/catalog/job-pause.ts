// What pausing a job type stores and sends: plain data shared by the client that pauses, the
// worker that reports it and the job workflows that wait. Workflow-safe. Names here are stored in
// histories and on the server: never rename them in place.

/** A job type's pause, as recorded, sent to its jobs and shown by `jobctl stats` and the job record. */
export interface JobPause {
  /** Why the type is paused, as the operator said. @defaultValue unset */
  reason?: string;
  /** When the pause was recorded (ISO 8601). */
  since: string;
  /** Who paused it (JOBCTL_USER, else the OS user; the console's user). @defaultValue unrecorded */
  by?: string;
}

/** Workflow type of a pause record: a workflow that is never run, kept open while its type is paused (see {@link pauseRecordOptions}). A stored contract. */
export const pauseRecordWorkflowType = 'jobPauseRecord';

/** Memo key of the {@link JobPause} on a pause record, and on a job started while its type was paused. A stored contract. */
export const jobPauseMemoKey = 'jobPause';

/** Signal a paused type's open jobs receive. A stored contract. */
export const jobPausedSignalName = 'jobPaused';

/** Signal a resumed type's open jobs receive. A stored contract. */
export const jobResumedSignalName = 'jobResumed';

/** The workflow ID of the pause record of a job type in a deployment (its shared task queue). */
export function pauseRecordId(taskQueue: string, type: string): string {
  return `jobs-pause:${taskQueue}:${type}`;
}

/**
 * The task queue of a deployment's pause records, which no worker polls: a record's first workflow
 * task is due only after {@link pauseRecordStartDelay}, so no worker ever runs one, and a pause holds
 * whether or not any worker is up.
 */
export function pauseRecordTaskQueue(taskQueue: string): string {
  return `${taskQueue}:pause-records`;
}

/** How far off a record's first workflow task is: never, for any practical purpose. */
export const pauseRecordStartDelay = '36500d';

/**
 * The reason a pause gives the Temporal activities it pauses (a step waiting out a server-side
 * retry delay, or failing while its type is paused): the resume unpauses only activities paused
 * with it, never one an operator paused by hand. A stored contract.
 */
export function activityPauseReason(type: string): string {
  return `durable-jobs: job type ${type} is paused`;
}
