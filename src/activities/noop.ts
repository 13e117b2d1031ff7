import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { NoopErrorType, noopJob, type NoopResult } from '../jobs/noop';
import { noopPayload } from '../jobs/payloads/noop';
import { parseJobPayload } from '../activity';
import { withRetrySchedule } from '../activity';

/** Input of the `runNoop` activity. */
export interface RunNoopInput {
  /** The job's payload, validated again here because it crossed a process boundary. */
  payload: unknown;
}

/** Builds the `noop` job's activity: it does nothing, or fails its first `failAttempts` attempts. */
export function createNoopActivities() {
  return {
    runNoop: withRetrySchedule(noopJob, 'run', async (input: RunNoopInput): Promise<NoopResult> => {
      const { failAttempts } = parseJobPayload('noop', noopPayload, input.payload);
      const { attempt } = Context.current().info;
      if (attempt <= failAttempts) {
        throw ApplicationFailure.retryable(`attempt ${attempt} of ${failAttempts} asked to fail`, NoopErrorType.InjectedFailure);
      }
      return { attempt };
    }),
  };
}
