import { deadLetterWorkflowId } from './dead-letter';

// A job type's DLQ is split into shards, each its own long-running workflow, so that a failure
// storm spreads its hand-offs and its entries over several histories: one workflow carries at most
// about 2 MB of packed entries into its next run, and receives at most 10,000 signals per run.
// Pure JS (no node:crypto), so that any layer may compute it.

/** Shards of each job type's DLQ. A stored contract: changing it would lose track of entries. */
export const deadLetterShardCount = 16;

/**
 * The shard that holds a job's entry: FNV-1a (32-bit) of its ID's UTF-16 code units, modulo
 * {@link deadLetterShardCount}. A stored contract: never change it in place.
 */
export function deadLetterShardOf(jobId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < jobId.length; i++) {
    hash ^= jobId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % deadLetterShardCount;
}

/** The workflow ID of one shard of a job type's DLQ, e.g. `durable-jobs-dlq:jobs:send-email:shard-07`. A stored contract. */
export function deadLetterShardWorkflowId(taskQueue: string, jobType: string, shard: number): string {
  return `${deadLetterWorkflowId(taskQueue, jobType)}:shard-${String(shard).padStart(2, '0')}`;
}

/**
 * Every workflow that may hold entries of a job type: the unsharded DLQ that releases before 0.3
 * fed (it keeps the entries it has, and the operations on them), then each shard.
 */
export function deadLetterWorkflowIds(taskQueue: string, jobType: string): string[] {
  return [deadLetterWorkflowId(taskQueue, jobType), ...Array.from({ length: deadLetterShardCount }, (_, s) => deadLetterShardWorkflowId(taskQueue, jobType, s))];
}

/** The job type a DLQ workflow ID (sharded or not) of this task queue belongs to, or undefined for another workflow. */
export function jobTypeOfDeadLetterWorkflow(taskQueue: string, workflowId: string): string | undefined {
  const prefix = deadLetterWorkflowId(taskQueue, '');
  if (!workflowId.startsWith(prefix)) return undefined;
  return workflowId.slice(prefix.length).replace(/:shard-\d+$/, '') || undefined;
}
