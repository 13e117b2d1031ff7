import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { NoopErrorType, noopJob, type NoopResult } from '../jobs/noop';
import { noopPayload } from '../jobs/payloads/noop';
import { parseJobPayload } from '../activity-kit';

/** Builds the `noop` job's activity: it does nothing, or fails its first `failAttempts` attempts. */
export function createNoopActivities() {
  return {
    /** Given the job's payload, validated again here because it crossed a process boundary. */
    runNoop: async (payload: unknown): Promise<NoopResult> => {
      const { failAttempts } = parseJobPayload(noopJob.type, noopPayload, payload);
      const { attempt } = Context.current().info;
      if (attempt <= failAttempts) {
        throw ApplicationFailure.retryable(`attempt ${attempt} of ${failAttempts} asked to fail`, NoopErrorType.InjectedFailure);
      }
      return { attempt };
    },
  };
}
