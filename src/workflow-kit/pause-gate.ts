// The pause gate of a job's workflow (jobctl pause <type>): while the job's type is paused, no new
// attempt of any of its activities is scheduled; an attempt already running finishes. A job learns
// of a pause from the memo it was started with (enqueued while paused) or from the jobPaused signal
// (paused while open), and of the resume from jobResumed. Nothing here adds a command or an event
// to a job whose type was never paused: the wait and its patch marker exist only on the paused path.
// Workflow code.
import { condition, defineSignal, log, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import { jobPauseMemoKey, jobPausedSignalName, jobResumedSignalName, type JobPause } from '../catalog/job-pause';
import { currentJobState } from './job-state';
import { RunLocal } from './run-local';

/** Marks the histories of jobs that waited at the gate; a history recorded by a worker without it (the signal ignored) replays without waiting. */
const pauseGatePatch = 'pause-gate';

/** Sent to every open job of a type when it is paused. A stored contract. */
export const jobPausedSignal = defineSignal<[JobPause]>(jobPausedSignalName);

/** Sent to every open job of a type when it is resumed. A stored contract. */
export const jobResumedSignal = defineSignal(jobResumedSignalName);

/** The pause in force for this run, if any. */
const runPause = new RunLocal<JobPause>('pause');

/** Shows the pause in the job's state (`jobctl status`), or clears it. */
function report(): void {
  const state = currentJobState();
  if (!state) return;
  const pause = runPause.get();
  if (pause) state.paused = pause;
  else delete state.paused;
}

/** The {@link JobPause} a job was started with, if its type was paused when it was enqueued. */
function pauseFromMemo(): JobPause | undefined {
  const value = workflowInfo().memo?.[jobPauseMemoKey] as JobPause | undefined;
  return value && typeof value === 'object' && typeof value.since === 'string' ? value : undefined;
}

/** Reads the start's pause and handles the pause signals: the job interceptor calls it once, before the job's workflow runs. */
export function installPauseGate(): void {
  runPause.set(pauseFromMemo());
  setHandler(jobPausedSignal, (input) => {
    runPause.set(input);
    report();
  });
  setHandler(jobResumedSignal, () => {
    runPause.set(undefined);
    report();
  });
}

/** The pause in force, if the job's type is paused. */
export function currentPause(): JobPause | undefined {
  return runPause.get();
}

/**
 * Resolves at once when the type is not paused (without awaiting, so the job's commands keep their
 * order); else waits until it is resumed. True when it waited. Called before each attempt is scheduled.
 */
export function passPauseGate(activityType: string): Promise<boolean> | undefined {
  const pause = runPause.get();
  if (!pause || !patched(pauseGatePatch)) return undefined;
  return (async () => {
    report();
    log.info('job:paused', { activity: activityType, reason: pause.reason, since: pause.since });
    await condition(() => runPause.get() === undefined);
    log.info('job:resumed', { activity: activityType });
    return true;
  })();
}
