import type { ActivityOptions, Duration } from '@temporalio/common';
import type { z } from 'zod';
import { maxAttempts, toRetryPolicy, type RetryShape } from '../shared/retry';

/** Timeouts of each activity a job runs. */
export interface JobTimeouts {
  /** Longest a single attempt may run before it is failed and retried. */
  startToClose: Duration;
  /** Longest the job's activity may take across all attempts and waits. @defaultValue unbounded */
  scheduleToClose?: Duration;
  /** Longest a long-running attempt may go without a heartbeat. @defaultValue no heartbeat required */
  heartbeat?: Duration;
}

/**
 * Everything the client, worker and CLI need to know about one job type. Definitions are pure
 * data, so workflow code may import them.
 */
export interface JobDefinition<TPayload extends z.ZodType = z.ZodType, TType extends string = string> {
  /** The job type's name, e.g. `send-email`. A stored contract: never rename it in place. */
  type: TType;
  /** Name of the workflow function that runs this job type. Also stored in histories. */
  workflowType: string;
  /** One-line description, shown by `jobctl types`. */
  description: string;
  /** Schema of the payload. The client validates against it before anything is enqueued. */
  payload: TPayload;
  /** How failed attempts are retried. */
  retry: RetryShape;
  /** Error types that fail the job at once, whatever attempts remain. */
  nonRetryableErrorTypes: readonly string[];
  /** Timeouts of each activity attempt. */
  timeouts: JobTimeouts;
}

/** Declares a job type; the identity function that lets TypeScript infer the payload type. */
export function defineJob<TPayload extends z.ZodType, const TType extends string>(
  definition: JobDefinition<TPayload, TType>,
): JobDefinition<TPayload, TType> {
  return definition;
}

/** Attempts in all that a job of this type gets. */
export function jobMaxAttempts(definition: JobDefinition): number {
  return maxAttempts(definition.retry);
}

/** The activity options that a job's workflow passes to `proxyActivities`. */
export function activityOptions(definition: JobDefinition): ActivityOptions {
  return {
    startToCloseTimeout: definition.timeouts.startToClose,
    scheduleToCloseTimeout: definition.timeouts.scheduleToClose,
    heartbeatTimeout: definition.timeouts.heartbeat,
    retry: toRetryPolicy(definition.retry, definition.nonRetryableErrorTypes),
  };
}
