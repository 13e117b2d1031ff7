// Every activity the library registers on a worker beside a team's: the DLQ's, the concurrency
// limiter's and the windows'. Each under its namespaced name and its bare alias (see
// src/shared/library-activities.ts).
import { createConcurrencyLimitActivities } from './concurrency-limit';
import { createDeadLetterActivities, type DeadLetterDeps } from './dead-letter';
import { createWindowActivities } from './window-start';
import { createBreakerActivities } from './breaker-activities';
import { registeredUnderBothNames } from '../shared/library-activities';

/** The library's activities for a worker on `deps.taskQueue` (the deployment's shared queue). */
export function createLibraryActivities(deps: DeadLetterDeps): Record<string, unknown> {
  const { client, taskQueue, catalog } = deps;
  return registeredUnderBothNames({
    // The shared queue: it names the dead-letter queues and runs them, whatever queue a job is on.
    ...createDeadLetterActivities(deps),
    ...createConcurrencyLimitActivities({ client, taskQueue }),
    // The debounce and dedupe windows run on the shared queue too, and start their jobs from it.
    ...createWindowActivities({ client, taskQueue, catalog }),
    // The dependencies' breakers run there too, and set their queues' rates from it.
    ...createBreakerActivities({ client }),
  });
}
