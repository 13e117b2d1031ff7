import type { Client } from '@temporalio/client';
import { jobProtocolMemo } from '../shared/job-protocol';
import { WorkflowNotFoundError } from '@temporalio/client';
import { concurrencyLimiterId, concurrencyLimiterWorkflowType } from '../catalog/concurrency-limit';
import { slotGrantedSignal, slotReleasedSignal, slotRequestedSignal, type ConcurrencyLimiterInput, type SlotRequest } from '../catalog/concurrency-signals';

/** What a limited job's `requestConcurrencySlot` sends. */
export interface SlotRequestInput extends SlotRequest {
  jobType: string;
  key: string;
}

/**
 * The activities of per-key concurrency limits: a job's request for its slot and its release, the
 * limiter's grants and its check of its holders. The signals between a job and its limiter go
 * through these (a client's signals), not workflow-to-workflow signals, which the Java
 * time-skipping test server fails on.
 */
export interface ConcurrencyLimitActivities {
  /** Asks the limiter of the job's type and key for a slot, starting the limiter if none runs; returns its workflow ID. Idempotent per job. */
  requestConcurrencySlot(input: SlotRequestInput): Promise<string>;
  /** Which of these jobs are still running (the others closed without giving their slot back, e.g. terminated). */
  runningJobs(jobIds: string[]): Promise<string[]>;
  /** Tells each job that its slot is granted; returns the jobs that could not be told (closed, or gone). */
  tellSlotGranted(jobIds: string[]): Promise<string[]>;
  /** Gives a closed job's slot back to its limiter; a limiter that is gone has nothing to give back to. */
  releaseConcurrencySlot(input: { limiterId: string; jobId: string }): Promise<void>;
}

/** Calls to Temporal at once when the limiter tells or checks many jobs. */
const batchSize = 20;

/** `call` on each ID, {@link batchSize} at a time; the results in the IDs' order. */
async function inBatches<T>(ids: string[], call: (id: string) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < ids.length; i += batchSize) results.push(...(await Promise.all(ids.slice(i, i + batchSize).map(call))));
  return results;
}

/** The concurrency-limit activities, on the deployment's client and shared queue (where the limiters run). */
export function createConcurrencyLimitActivities(deps: { client: Client; taskQueue: string }): ConcurrencyLimitActivities {
  const { client, taskQueue } = deps;
  return {
    async requestConcurrencySlot(input) {
      const workflowId = concurrencyLimiterId(taskQueue, input.jobType, input.key);
      const start: ConcurrencyLimiterInput = { jobType: input.jobType, key: input.key, limit: input.limit };
      await client.workflow.signalWithStart(concurrencyLimiterWorkflowType, {
        workflowId,
        taskQueue,
        args: [start],
        signal: slotRequestedSignal,
        signalArgs: [{ jobId: input.jobId, priority: input.priority, limit: input.limit }],
        memo: jobProtocolMemo(),
        staticSummary: `concurrency limit of ${input.jobType} for ${input.key}`,
      });
      return workflowId;
    },
    async tellSlotGranted(jobIds) {
      const told = await inBatches(jobIds, async (id) => {
        try {
          await client.workflow.getHandle(id).signal(slotGrantedSignal);
          return true;
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          return false;
        }
      });
      return jobIds.filter((_, i) => !told[i]);
    },
    async releaseConcurrencySlot({ limiterId, jobId }) {
      try {
        await client.workflow.getHandle(limiterId).signal(slotReleasedSignal, { jobId });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
    async runningJobs(jobIds) {
      const statuses = await inBatches(jobIds, async (id) => {
        try {
          return (await client.workflow.getHandle(id).describe()).status.name;
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
          throw err;
        }
      });
      return jobIds.filter((_, i) => statuses[i] === 'RUNNING');
    },
  };
}
