// The worker's workflowsPath: the job's workflow and the library's, as README step 2 writes them.
import { jobActivities, trackJob } from '../../src/workflow-kit';
import type { Activities, GreetResult } from './activities';
import { greetJob } from './greet';
import type { GreetPayload } from './greet.payload';

export { deadLetterWorkflow, debounceJobWorkflow, dedupeJobWorkflow, concurrencyLimiterWorkflow } from '../../src/workflow-kit';

const { greet } = jobActivities<Activities>(greetJob, 'greet');

/** Runs one `greet` job; its logs, final state and DLQ hand-off come from the library's interceptor. */
export async function greetJobWorkflow(payload: GreetPayload): Promise<GreetResult> {
  trackJob(greetJob);
  return await greet({ payload });
}
