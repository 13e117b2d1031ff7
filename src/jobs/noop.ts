import { ErrorType } from '../workflow-kit';
import { retrySchedule } from '../workflow-kit';
import { defineJob } from '../workflow-kit';

export type { NoopPayload } from './payloads/noop';

/**
 * The `noop` job type's own error types, in its own namespace (until 0.3 in the library's
 * `jobs:`, matched by its presets under both names): stored in histories and matched by its presets, so never renamed in place.
 */
export const NoopErrorType = {
  /** A `noop` job's attempt failed because its payload asked it to (`failAttempts`): retried. */
  InjectedFailure: 'noop:injected-failure',
} as const;

/** What a `noop` job returns. */
export interface NoopResult {
  /** The attempt that succeeded (1 unless `failAttempts` asked for failures). */
  attempt: number;
}

/**
 * The `noop` job type: does nothing, through the whole job path (validation, retry schedule, logs,
 * interceptors, DLQ). It is how `npm run bench` measures the framework's own cost per job, and how
 * an operator checks that a deployed worker picks up jobs (`jobctl enqueue noop '{}'`). Its step is
 * a local activity (`activity: 'local'`), the lever for short jobs.
 */
export const noopJob = defineJob({
  type: 'noop',
  workflowType: 'noopWorkflow',
  description: 'Do nothing (a health check and the benchmark job); failAttempts makes its first attempts fail',
  presets: {
    run: {
      retry: retrySchedule('1s', '5s', '30s'),
      nonRetryableErrorTypes: [ErrorType.InvalidPayload],
      timeouts: { startToClose: '10s', scheduleToClose: '5m' },
    },
  },
  mainPreset: 'run',
  steps: ['run'],
  activity: 'local',
});
