import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { jobProtocolMemo } from '../shared/job-protocol';
import type { PreparedJob } from '../catalog/prepare-job';
import { dedupeWorkflowId, dedupeWorkflowType } from '../catalog/window-ids';
import { dedupeJobIdMemoKey } from '../catalog/window-presets';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import type { DedupeWorkflowInput } from '../workflow-kit/dedupe';

type Enqueued = { id: string; existed: boolean; handle: WorkflowHandle };

/** How long past its TTL the server closes a window that no worker completed. */
const closeGraceMs = 60_000;

/** Tries to open a window whose previous one closed between the start and the describe, before giving up. */
const openAttempts = 3;

/**
 * A deduplicated enqueue: opens the key's window (a workflow whose ID the key names, open for the
 * TTL, which the server refuses to start twice) and starts its job with `startJob`, as any enqueue
 * does; or, when the key's window is open already, returns the job it holds (`existed: true`),
 * whatever its payload and whether or not it has finished.
 */
export async function enqueueDeduped(
  temporal: Client,
  taskQueue: string,
  job: PreparedJob & { dedupe: NonNullable<PreparedJob['dedupe']> },
  startJob: (job: PreparedJob) => Promise<Enqueued>,
): Promise<Enqueued> {
  const { definition, payload, priority, fairness, delayMs, dedupe } = job;
  const { type } = definition;
  const workflowId = dedupeWorkflowId(type, dedupe.key);
  const input: DedupeWorkflowInput = { type, key: dedupe.key, jobId: job.id, payload, ttlMs: dedupe.ttlMs, priority, fairness, delayMs };
  for (let attempt = 1; ; attempt++) {
    try {
      await temporal.workflow.start(dedupeWorkflowType, {
        workflowId,
        taskQueue,
        args: [input],
        memo: { ...jobProtocolMemo(), [dedupeJobIdMemoKey]: job.id },
        staticSummary: `dedupe window of ${type} ${dedupe.key}`,
        // Open, the window's ID is taken; closed (its TTL is over), the key opens a new one.
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        // The window completes itself at its TTL; with no worker there then to run that, the server closes it a minute later.
        workflowExecutionTimeout: dedupe.ttlMs + closeGraceMs,
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw missingSearchAttributeIn(err, temporal.options.namespace) ?? err;
      const open = await temporal.workflow.getHandle(workflowId).describe();
      const id = open.memo?.[dedupeJobIdMemoKey];
      if (open.status.name === 'RUNNING' && typeof id === 'string') return { id, existed: true, handle: temporal.workflow.getHandle(id) };
      if (attempt >= openAttempts) throw err;
      continue;
    }
    // The window is this enqueue's: its job starts now, even if no worker runs the window yet.
    const started = await startJob({ ...job, dedupe: undefined });
    return { ...started, existed: false };
  }
}
