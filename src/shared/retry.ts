import type { Duration, RetryPolicy } from '@temporalio/common';
import { msToNumber } from './sdk-internals';

/** Backoff that grows by a constant factor after each failed attempt. */
export interface ExponentialRetry {
  kind: 'exponential';
  /** Wait after the first failed attempt. @defaultValue '1s' */
  initialInterval: Duration;
  /** Factor applied to the wait after each further failure. @defaultValue 2 */
  backoffCoefficient: number;
  /** Upper bound on any single wait. @defaultValue '10m' */
  maximumInterval: Duration;
  /** Attempts in all, the first one included; 0 retries until the attempt succeeds or a timeout ends it. */
  maximumAttempts: number;
}

/**
 * An explicit per-attempt schedule: `delays[i]` is the wait after attempt `i + 1` fails, so a job
 * gets `delays.length + 1` attempts in all.
 */
export interface ScheduledRetry {
  kind: 'schedule';
  /** Waits between attempts, in order, e.g. `['1s', '5s', '30s', '5m', '30m']`. */
  delays: readonly Duration[];
}

/** How a job's failed attempts are retried. */
export type RetryShape = ExponentialRetry | ScheduledRetry;

/** Builds an {@link ExponentialRetry}, filling in the documented defaults. */
export function exponentialRetry(options: Partial<Omit<ExponentialRetry, 'kind'>> & { maximumAttempts: number }): ExponentialRetry {
  return { kind: 'exponential', initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10m', ...options };
}

/** Builds a {@link ScheduledRetry} from its waits: `retrySchedule('1s', '5s', '30s')` (cron schedules are `JobSchedules`). */
export function retrySchedule(...delays: Duration[]): ScheduledRetry {
  if (delays.length === 0) throw new TypeError('a retry schedule needs at least one delay');
  return { kind: 'schedule', delays };
}

/** @deprecated Since 0.3: {@link retrySchedule} (named apart from cron schedules); removed in 0.4. */
export const schedule = retrySchedule;
/** @deprecated Since 0.3: {@link exponentialRetry}; removed in 0.4. */
export const exponential = exponentialRetry;

/** Attempts in all, the first one included. */
export function maxAttempts(shape: RetryShape): number {
  return shape.kind === 'schedule' ? shape.delays.length + 1 : shape.maximumAttempts;
}

/**
 * The wait after `attempt` (1-based) fails, when the shape fixes one. Activities put it on the
 * failure as `nextRetryDelay`, which Temporal honours over the policy's own backoff.
 */
export function delayAfterAttempt(shape: RetryShape, attempt: number): Duration | undefined {
  return shape.kind === 'schedule' ? shape.delays[attempt - 1] : undefined;
}

/**
 * The Temporal retry policy for a shape. For a schedule, the policy bounds the attempts and
 * provides a fallback backoff (first delay, doubling, capped at the longest delay) for failures
 * that carry no `nextRetryDelay`, such as timeouts or a crashed worker.
 */
export function toRetryPolicy(shape: RetryShape, nonRetryableErrorTypes: readonly string[] = []): RetryPolicy {
  const attempts = maxAttempts(shape);
  // The SDK spells "unlimited" as an absent maximumAttempts.
  const common = { maximumAttempts: attempts === 0 ? undefined : attempts, nonRetryableErrorTypes: [...nonRetryableErrorTypes] };
  if (shape.kind === 'exponential') {
    return {
      ...common,
      initialInterval: shape.initialInterval,
      backoffCoefficient: shape.backoffCoefficient,
      maximumInterval: shape.maximumInterval,
    };
  }
  const longest = Math.max(...shape.delays.map((d) => msToNumber(d)));
  return { ...common, initialInterval: shape.delays[0], backoffCoefficient: 2, maximumInterval: longest };
}
