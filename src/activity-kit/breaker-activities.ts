// The breaker's one activity: it sets the dependency's task queue rate on the Temporal server
// (UpdateTaskQueueConfig's queue rate limit), which the server enforces over every worker. A rate
// of 0 hands out no attempt at all; none removes the limit the breaker set.
import { isGrpcServiceError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { setActivityQueueRate } from '../shared/task-queue-rate';
import { ErrorType } from '../shared/errors';

/** What {@link BreakerActivities.setDependencyRate} sets. */
export interface DependencyRate {
  taskQueue: string;
  /** Attempts per second; 0 stops them; null removes the breaker's limit. */
  rate: number | null;
  reason: string;
}

/** The activities of a dependency's breaker. */
export interface BreakerActivities {
  setDependencyRate(input: DependencyRate): Promise<void>;
}

/** The breaker's activities, on the deployment's client. */
export function createBreakerActivities({ client }: { client: Client }): BreakerActivities {
  return {
    async setDependencyRate({ taskQueue, rate, reason }) {
      try {
        await setActivityQueueRate(client, taskQueue, 'queue', rate ?? undefined, reason);
      } catch (err) {
        // UNIMPLEMENTED: a server before 1.28 has no queue rate to set.
        if (isGrpcServiceError(err) && err.code === 12) {
          throw ApplicationFailure.create({ type: ErrorType.Unexpected, message: `the Temporal server cannot set a task queue's rate (UpdateTaskQueueConfig): ${err.details ?? err.message}`, nonRetryable: true });
        }
        throw err;
      }
    },
  };
}
