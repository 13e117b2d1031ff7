// The plain Temporal application `npm run bench` compares against, written the way the official
// samples (temporalio/samples-typescript, hello-world) write it: one workflow, one regular activity.
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './activities';

const { greet } = proxyActivities<typeof activities>({ startToCloseTimeout: '1 minute' });

/** The baseline: one workflow that calls one regular activity. */
export async function greetWorkflow(name: string): Promise<string> {
  return await greet(name);
}

/** The ceiling: a workflow that returns at once, the least one workflow per job can cost. */
export async function emptyWorkflow(): Promise<void> {}
