import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure, TemporalFailure, type Duration } from '@temporalio/common';
import { msToNumber } from '../shared/sdk-internals';
import { jobMaxAttempts, presetOf, type JobDefinition } from '../catalog/define-job';
import { databaseFailure } from '../db/database-errors';
import { scrubErrorChain } from '../catalog/sensitive';
import { ErrorType, describeError } from '../shared/errors';
import { delayAfterAttempt, type RetryShape } from '../shared/retry';
import { jobAttemptOrUndefined } from './job-attempt';

/**
 * Turns whatever an attempt threw into the failure Temporal should see: non-retryable failures
 * pass through, and retryable ones carry the schedule's `nextRetryDelay` for this attempt, so that
 * Temporal itself waits and counts the attempts (no hidden loops).
 */
export function toScheduledFailure(shape: RetryShape, attempt: number, thrown: unknown): unknown {
  // A database driver's error is named by its kind (jobs:database-*), whichever activity met it.
  const err = thrown instanceof TemporalFailure ? thrown : (databaseFailure(thrown) ?? thrown);
  if (err instanceof ApplicationFailure && err.nonRetryable) return err;
  // Cancellation and other Temporal failures keep their meaning; only plain errors are rewrapped.
  if (err instanceof TemporalFailure && !(err instanceof ApplicationFailure)) return err;
  // Undefined after the last step (and for exponential shapes): the policy's own backoff applies.
  const nextRetryDelay = delayAfterAttempt(shape, attempt);
  if (err instanceof ApplicationFailure) {
    if (nextRetryDelay === undefined || (err.nextRetryDelay !== undefined && err.nextRetryDelay !== null)) return err;
    return ApplicationFailure.create({
      type: err.type ?? undefined,
      message: err.message,
      details: err.details ? [...err.details] : undefined,
      cause: err.cause,
      nonRetryable: false,
      nextRetryDelay,
    });
  }
  // Wrapped on every attempt, the last included, so the error that ends a job keeps a type.
  return ApplicationFailure.create({
    type: err instanceof Error && err.name !== 'Error' ? err.name : ErrorType.Unexpected,
    message: describeError(err),
    cause: err instanceof Error ? err : undefined,
    nonRetryable: false,
    nextRetryDelay,
  });
}

/**
 * Wraps an activity so that its failures follow the retry schedule of the job's named preset.
 * Needed only for steps scheduled by a workflow of an earlier release: the job interceptor applies
 * the schedule of the preset the workflow named (`jobActivities(definition, preset)`) to every
 * step, and this wrapper then passes the attempt through unchanged.
 * @deprecated The schedule is applied for you; kept for activities written for 0.2.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any payload; the preset name is checked against the definition's (a typo is a compile error)
export function withRetrySchedule<I, O, P extends string = string>(definition: JobDefinition<any, string, P>, presetName: NoInfer<P>, run: (input: I) => Promise<O>): (input: I) => Promise<O> {
  presetOf(definition, presetName);
  return async (input: I) => {
    const job = jobAttemptOrUndefined();
    // Applied by the interceptor, from the preset in the job header.
    if (job?.headed) return run(input);
    const context = Context.current();
    if (!job) logAttempt(context, definition, presetName);
    scheduledHere.add(context);
    try {
      return await run(input);
    } catch (err) {
      throw attemptFailure(context, definition, presetName, input, err);
    }
  };
}

/** Attempts whose schedule `withRetrySchedule` applied (an earlier release's step): the interceptor leaves them. Shared by every copy of this module (see job-attempt.ts). */
const shared = globalThis as { [key: symbol]: WeakSet<Context> | undefined };
const scheduledHere = (shared[Symbol.for('durable-jobs.scheduled-attempts')] ??= new WeakSet<Context>());

/** Whether `withRetrySchedule` already applied a schedule to this attempt's failure. */
export function scheduledByWrapper(context: Context): boolean {
  return scheduledHere.has(context);
}

/**
 * Logs the start of an attempt of a step. A first attempt is the normal case (job:start already
 * says the job began): debug, because a line per step per job was a measurable part of the
 * worker's CPU per job (docs/performance.md). Retries, the attempts an operator looks for, are info.
 */
export function logAttempt(context: Context, definition: JobDefinition, presetName: string): void {
  const { attempt } = context.info;
  context.log[attempt > 1 ? 'info' : 'debug']('job:attempt', { jobType: definition.type, step: presetName, attempt });
}

/**
 * What a failed attempt of a step under `presetName` throws: its error with sensitive values
 * masked, wrapped so that Temporal waits the schedule's delay before the next attempt, and logged
 * (`job:attempt-failed`, or `job:attempt-cancelled`).
 */
export function attemptFailure(context: Context, definition: JobDefinition, presetName: string, input: unknown, err: unknown): unknown {
  const preset = presetOf(definition, presetName);
  const nonRetryableTypes = preset.nonRetryableErrorTypes ?? [];
  // Before it is logged here: the activity interceptor scrubs it again for the history.
  scrubErrorChain(err, input, definition.sensitive);
  const { attempt } = context.info;
  if (err instanceof CancelledFailure) {
    // Not a failure of the work: the job was cancelled (info), or the worker is stopping and
    // the activity interceptor turns this into a retryable jobs:worker-shutdown (warn).
    const shutdown = err.message === 'WORKER_SHUTDOWN';
    context.log[shutdown ? 'warn' : 'info'](shutdown ? 'job:attempt-failed' : 'job:attempt-cancelled', {
      jobType: definition.type,
      attempt,
      retrying: shutdown,
      errorType: shutdown ? ErrorType.WorkerShutdown : undefined,
      error: describeError(err),
    });
    return err;
  }
  const failure = toScheduledFailure(preset.retry, attempt, err);
  const retrying =
    attempt < jobMaxAttempts(definition, presetName) &&
    !(failure instanceof ApplicationFailure && (failure.nonRetryable || (nonRetryableTypes as readonly string[]).includes(failure.type ?? '')));
  context.log.warn('job:attempt-failed', {
    jobType: definition.type,
    attempt,
    retrying,
    errorType: failure instanceof ApplicationFailure ? (failure.type ?? undefined) : undefined,
    nextRetryDelay: retrying ? nextDelay(preset.retry, attempt, failure) : undefined,
    error: describeError(err),
  });
  return failure;
}

/** The wait before the next attempt: the failure's own `nextRetryDelay`, else the exponential backoff Temporal applies. */
function nextDelay(shape: RetryShape, attempt: number, failure: unknown): Duration | undefined {
  if (failure instanceof ApplicationFailure && failure.nextRetryDelay !== undefined && failure.nextRetryDelay !== null) return failure.nextRetryDelay;
  if (shape.kind !== 'exponential') return undefined;
  const ms = Math.min(msToNumber(shape.initialInterval) * shape.backoffCoefficient ** (attempt - 1), msToNumber(shape.maximumInterval));
  return `${Math.round(ms)}ms`;
}
