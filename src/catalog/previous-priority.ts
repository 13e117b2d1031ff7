import type { Client } from '@temporalio/client';
import { fairnessOfPriority } from './fairness';
import type { JobFairness } from './job-fairness';

/**
 * The priority key and fairness a job's latest run was started with, read from its description
 * (where Temporal keeps them): what a redrive starts the job with again. Empty when the run cannot
 * be read (e.g. past retention); the redrive then takes the type's derived fairness.
 */
export async function previousPriority(client: Client, id: string): Promise<{ priority?: number; fairness?: JobFairness }> {
  try {
    const described = await client.workflow.getHandle(id).describe();
    const priority = described.raw.workflowExecutionInfo?.priority;
    return { priority: priority?.priorityKey || undefined, fairness: fairnessOfPriority(priority) };
  } catch {
    return {};
  }
}
