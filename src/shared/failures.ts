// The failures an activity (or workflow code) throws for Temporal to retry or not: each with a
// namespaced type (`<namespace>:<kind>`), which retry policies match and histories keep.
import type { Duration } from '@temporalio/common';
import { ApplicationFailure } from './sdk-internals';
import type { NamespacedErrorType } from './errors';

/** A failure that Temporal must not retry, whatever the retry policy says. */
export function nonRetryable(type: NamespacedErrorType, message: string, cause?: unknown): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, cause: asError(cause) });
}

/** A failure that Temporal retries, optionally after an explicit delay (see {@link retryAfter}). */
export function retryable(type: NamespacedErrorType, message: string, cause?: unknown, nextRetryDelay?: Duration): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: false, cause: asError(cause), nextRetryDelay });
}

/**
 * A failure retried after `delay` (milliseconds, or a duration such as `'30s'`) instead of the
 * preset's next delay, e.g. what a `Retry-After` header asks for:
 * `throw retryAfter('hooks:throttled', 'the endpoint asked us to wait', parseRetryAfter(res.headers.get('retry-after')))`.
 * An undefined delay (no header, or one that cannot be read) falls back to the preset's schedule.
 * The attempt still counts against the preset's attempts.
 */
export function retryAfter(type: NamespacedErrorType, message: string, delay: Duration | undefined, cause?: unknown): ApplicationFailure {
  return retryable(type, message, cause, delay);
}

function asError(cause: unknown): Error | undefined {
  if (cause === undefined) return undefined;
  return cause instanceof Error ? cause : new Error(String(cause));
}
