// The job record: what `jobctl status`, the console and the client's \`get\` show of one job, read
// from Temporal (no second copy of state). Built by job-record.ts.
import type { JobFairness } from '../catalog/job-fairness';
import type { StallReason } from '../shared/job-metrics';
import type { JobProgress, JobState } from '../workflow-kit/job-state';

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
  /** The namespaced error type, e.g. `send-email:smtp-rejected`, when the failure has one. */
  type?: string;
  /** The failure's message. */
  message: string;
  /**
   * Set when the attempt ended because its worker stopped answering rather than by throwing: a
   * heartbeat timeout, a start-to-close timeout, or the worker shutting down.
   */
  stall?: StallReason;
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
  /** The step the job is in, or ended in (reported by the job itself). */
  step?: string;
  /** The job's steps, in order. */
  steps?: readonly string[];
  /** Progress of the current step, for long steps. */
  progress?: JobProgress;
  /** Compensation after a failure or cancellation, with the steps it undid. */
  compensation?: JobState['compensation'];
  /** Runs so far, counting continue-as-new hand-overs. */
  run?: number;
  /** Set while the job waits for a setting its step needs (`jobs:missing-config`), which costs it no attempt; `status` is then `retrying`. */
  configWait?: { since: string; nextCheckAt: string; checks: number };
  /** The fairness key (and weight) the job runs with, as its workflow's priority holds it; unset for the empty key. */
  fairness?: JobFairness;
  /** Set while the job waits for a slot of its type's concurrency limit, before its first step (no attempt has begun; `status` stays `running`). */
  limitWait?: { key: string; limit: number; since: string };
  /** Set while the job's type is paused (`jobctl pause`): no new attempt starts until it is resumed; `status` stays what it was (`running`, `retrying`). */
  paused?: JobState['paused'];
  /**
   * Set while a debounced job has not started (`status` is then `scheduled`): whether its window
   * has closed (the job is starting), else the enqueues collected and when the window closes if no
   * more come (unset when the debouncer did not answer).
   */
  debounce?: { closed: boolean; enqueues?: number; firesAt?: string };
  /**
   * Set when the job is running but no worker answered its state query within a second: the
   * record is what the server holds (describe and history), without the step and progress the job
   * reports itself. The job's workers are down, or too busy to answer.
   */
  workersNotAnswering?: true;
}
