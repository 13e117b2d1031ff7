import { Context } from '@temporalio/activity';

/** Which job an activity attempt works for, as the job interceptor learnt it: see {@link currentJob}. */
export interface JobAttempt {
  /** The job ID (its workflow ID). */
  jobId: string;
  /** The job's type. */
  jobType: string;
  /** The job execution (first run ID): stable across retries and continue-as-new, new per redrive. The ledger's key. */
  execution: string;
  /** The preset the workflow scheduled this step with; undefined for the library's own calls (the DLQ hand-off). */
  preset?: string;
  /** This attempt's number, from 1. */
  attempt: number;
  /**
   * False for a step scheduled by a workflow of an earlier release, which sent no job header: its
   * preset is the definition's main one (unless `withRetrySchedule` names another), and its input
   * may be the earlier `{ jobId, execution, payload }` envelope, which `parseJobPayload` opens.
   */
  headed: boolean;
}

/**
 * Shared by every copy of this module in the process: a worker's interceptor and a team's
 * activities may load the library from two places (a build and its sources, or two installs), and
 * each copy must see the attempts the other recorded.
 */
const registry = globalThis as { [key: symbol]: WeakMap<Context, JobAttempt> | undefined };
const attemptsKey = Symbol.for('durable-jobs.job-attempts');
const attempts = (registry[attemptsKey] ??= new WeakMap<Context, JobAttempt>());

/** Called by the activity interceptor when an attempt of a job's step starts. */
export function recordJobAttempt(context: Context, attempt: JobAttempt): void {
  attempts.set(context, attempt);
}

/**
 * The job this activity attempt works for: its ID, execution (the ledger's key), preset and
 * attempt, without anything passed by the workflow. Throws outside an activity of a catalog job.
 */
export function currentJob(): JobAttempt {
  const attempt = jobAttemptOrUndefined();
  if (!attempt) throw new TypeError('currentJob() is called in an activity of a catalog job (a step its workflow scheduled), on a worker created by durable-jobs');
  return attempt;
}

/** The job of this activity attempt, or undefined outside one. */
export function jobAttemptOrUndefined(): JobAttempt | undefined {
  try {
    return attempts.get(Context.current());
  } catch {
    return undefined; // not in an activity
  }
}

/** The `execution` a step's input carried before the job header existed (`{ jobId, execution, … }`). */
export function legacyExecution(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { jobId, execution } = input as { jobId?: unknown; execution?: unknown };
  return typeof jobId === 'string' && typeof execution === 'string' ? execution : undefined;
}

/**
 * The `{ jobId, execution, payload }` input that steps took before the job header existed, as a
 * workflow of an earlier release still sends it to an attempt retried on this one.
 */
export function legacyStepInput(input: unknown): { jobId: string; execution: string; payload: unknown } | undefined {
  if (typeof input !== 'object' || input === null || !('payload' in input)) return undefined;
  const { jobId, execution } = input as { jobId?: unknown; execution?: unknown };
  return typeof jobId === 'string' && typeof execution === 'string' ? (input as { jobId: string; execution: string; payload: unknown }) : undefined;
}

/** The payload a step was given: out of the earlier envelope when a workflow of 0.2 scheduled it. */
export function unwrapLegacyInput(input: unknown): unknown {
  const job = jobAttemptOrUndefined();
  return job && !job.headed ? (legacyStepInput(input)?.payload ?? input) : input;
}
