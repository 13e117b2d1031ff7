import { defineQuery, defineSignal, setHandler } from '@temporalio/workflow';
import type { JobDefinition } from '../catalog/define-job';
import { jobOutlineOf } from '../catalog/job-outline';
import { jobStateMemoKey, jobStateQueryName } from './job-state-names';
import type { JobPause } from '../catalog/job-pause';
import { RunLocal } from './run-local';

/** How far a job has got through its work, e.g. pages synced or rows aggregated. */
export interface JobProgress {
  /** Units done so far. */
  done: number;
  /** Units in all, when known. */
  total?: number;
  /** What a unit is, e.g. `pages` or `rows`. */
  unit?: string;
}

/** What a job reports about itself: `jobctl status` shows it while the job runs and after it closed. */
export interface JobState {
  /** The step the job is in (or ended in), one of `steps`. */
  step: string;
  /** The job's steps, in order. */
  steps: readonly string[];
  /** The activity preset of the current step; the job record reads its attempts limit from it. */
  preset: string;
  /**
   * Attempts in all that one step gets under each of the job's presets, reported once by the job
   * itself so that a reader needs no catalog. Absent in jobs started before it was added.
   */
  maxAttempts?: Record<string, number>;
  /** Progress of the current step, for long steps. */
  progress?: JobProgress;
  /** Compensation after a failure: `running`, then `done`, with the steps it undid. */
  compensation?: { status: 'running' | 'done'; undone: string[] };
  /** Runs so far, counting continue-as-new hand-overs (1 for a job that never continued). */
  run?: number;
  /** What the job had done when it was asked to stop, as `JobClient.cancel` saw it; see {@link cancelRequestedSignal}. */
  cancelRequested?: CancelRequestedInput;
  /** Set while the job waits for a setting its step needs (see src/workflow-kit/config-wait.ts). */
  configWait?: ConfigWait;
  /** Set while the job waits for a slot of its type's concurrency limit (src/workflow-kit/concurrency-slot.ts). */
  limitWait?: LimitWait;
  /** Set while the job's type is paused (`jobctl pause`): no new attempt starts until it is resumed (see src/workflow-kit/pause-gate.ts). */
  paused?: JobPause;
}

/** The job's wait for a concurrency slot, as its state reports it: `jobctl status` shows it. */
export interface LimitWait {
  /** The concurrency key the job counts under. */
  key: string;
  /** Jobs of the type that may run at once under the key. */
  limit: number;
  /** When the job asked for its slot (ISO 8601). */
  since: string;
}

/** The job's wait for a setting, as its state reports it: `jobctl status` shows it. */
export interface ConfigWait {
  /** Why the step cannot run: the `jobs:missing-config` error of its last check. */
  error: { type: string; message: string };
  /** When the wait began (ISO 8601). */
  since: string;
  /** When the step is tried again (ISO 8601). */
  nextCheckAt: string;
  /** Checks that found the setting missing so far. */
  checks: number;
}

/**
 * What the canceller saw of the job's activity: the attempts it had begun and why the last one
 * failed. Temporal records no attempt of an activity cancelled while it waits out a retry delay
 * (its history has no start event), so the job keeps this for its record.
 */
export interface CancelRequestedInput {
  /** Attempts the current activity had begun. */
  attempts: number;
  /** Why its last attempt failed, if one did. */
  error?: { type?: string; message: string };
}

/** Sent by `JobClient.cancel` just before it cancels the job; every job workflow handles it. A stored contract. */
export const cancelRequestedSignal = defineSignal<[CancelRequestedInput]>('cancelRequested');

/** Answers with the job's {@link JobState}. Every job workflow handles it. A stored contract. */
export const jobStateQuery = defineQuery<JobState>(jobStateQueryName);

export { jobStateMemoKey };

/** The running job's state. */
const current = new RunLocal<JobState>('jobState');

/**
 * Starts reporting a job's state: registers {@link jobStateQuery} and returns the state to update
 * as the job moves through its steps. Call once, at the top of the job's workflow.
 */
export function trackJob(definition: JobDefinition, initial: Partial<JobState> = {}): JobState {
  const { steps, preset, maxAttempts } = jobOutlineOf(definition);
  const state: JobState = { step: steps[0] ?? definition.type, steps, preset, maxAttempts, ...initial };
  current.set(state);
  setHandler(jobStateQuery, () => state);
  setHandler(cancelRequestedSignal, (input) => void (state.cancelRequested = input));
  return state;
}

/** The state of the job running in this workflow, if it called {@link trackJob}. */
export function currentJobState(): JobState | undefined {
  return current.get();
}
