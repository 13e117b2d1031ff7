// The worker's workflowsPath: the job's workflow, as the README's "Use it in your project" writes
// it (the worker adds the library's own workflows to the bundle).
import { runJob } from '../../src/workflow-kit';
import type { Activities, GreetResult } from './activities';
import { greetJob } from './greet';
import type { GreetPayload } from './greet.payload';

/** Runs one `greet` job; its record, logs and DLQ hand-off come from runJob and the library's interceptor. */
export function greetJobWorkflow(payload: GreetPayload): Promise<GreetResult> {
  return runJob(greetJob, async (job) => {
    const { greet } = job.activities<Activities>('greet');
    return job.step('greet', () => greet(payload));
  });
}
