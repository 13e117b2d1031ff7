import { ActivityFailure, ApplicationFailure, log, sleep, workflowInfo } from '@temporalio/workflow';
import type { WindowActivities } from '../activity-kit/window-start';
import { presetOptions } from '../catalog/define-job';
import { windowPresets } from '../catalog/window-presets';
import type { JobFairness } from '../catalog/job-fairness';
import { libraryActivities } from './library-activity-calls';

/** Input of {@link dedupeJobWorkflow}: the job of the enqueue that opened the window. */
export interface DedupeWorkflowInput {
  /** The job type. */
  type: string;
  /** The dedupe key. */
  key: string;
  /** The window's job ID, also in the memo (`dedupeJobId`) where later enqueues read it. */
  jobId: string;
  /** The payload, validated by the client. */
  payload: unknown;
  /** How long the window stays open after its start, in ms. */
  ttlMs: number;
  /** 1 (highest) to 5 (lowest). @defaultValue Temporal's default */
  priority?: number;
  /** The fairness key and weight given at enqueue. @defaultValue what the type derives from the payload */
  fairness?: JobFairness;
  /** Wait before the job's first attempt, in ms. @defaultValue 0 */
  delayMs?: number;
}

/** What {@link dedupeJobWorkflow} returns when its window closes. */
export interface DedupeWorkflowResult {
  jobId: string;
}

const { startWindowJob } = libraryActivities<WindowActivities>(presetOptions(windowPresets.start));

/**
 * The dedupe window of one job type and key: open, so its workflow ID is taken, for `ttlMs` after
 * its start, whatever becomes of its job; an enqueue of the key that finds it open is given its
 * job. The client that opened it starts the job itself; the window starts it too (a no-op when it
 * is there), so a client that stopped between the two loses nothing. Not bound by the
 * namespace's retention, which only counts from a workflow's close.
 */
export async function dedupeJobWorkflow(input: DedupeWorkflowInput): Promise<DedupeWorkflowResult> {
  const { type, jobId } = input;
  const { startTime } = workflowInfo();
  try {
    await startWindowJob({ type, id: jobId, payloads: [input.payload], priority: input.priority, fairness: input.fairness, delayMs: input.delayMs, createdAt: startTime.toISOString() });
  } catch (err) {
    if (!(err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.nonRetryable)) throw err;
    log.error('dedupe:start-failed', { jobId, jobType: type, errorType: err.cause.type, error: err.cause.message });
  }
  const left = startTime.getTime() + input.ttlMs - Date.now();
  if (left > 0) await sleep(left);
  return { jobId };
}
