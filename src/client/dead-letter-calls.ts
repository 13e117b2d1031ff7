// The calls a client makes to one DLQ workflow, retried through its hand-over to its next run: a
// DLQ continues as new every few thousand events, and a call that lands just then is refused with a
// retryable error or finds the old run closed. The handle is never pinned to a run, so the retry
// reaches the new one.
import { setTimeout as sleep } from 'node:timers/promises';
import { isGrpcServiceError, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ErrorType, JobsError, describeError } from '../shared/errors';

/** gRPC status codes that a hand-over (or a busy server) produces and a retry outlives. */
const GRPC = { NOT_FOUND: 5, RESOURCE_EXHAUSTED: 8, ABORTED: 10, UNAVAILABLE: 14, DEADLINE_EXCEEDED: 4 } as const;

/**
 * How long a call is retried before its error is reported, in ms (a breaker's order too,
 * breaker-order.ts). Long enough for a loaded
 * machine: two suites side by side on 2 cores had a DLQ activation of thousands of signals outrun
 * its 10 s task timeout several times over, refusing updates all the while ("Workflow Task in failed
 * state") for more than 10 s. A worker that is gone is found apart from this (whileWorkersPoll).
 */
export const handOverRetryMs = 60_000;

/** Whether the DLQ workflow does not exist (never started): it holds nothing. */
export function isMissingWorkflow(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return !/already completed/i.test(err.message);
  return isGrpcServiceError(err) && err.code === GRPC.NOT_FOUND && !/already completed/i.test(err.details ?? err.message);
}

/**
 * Whether `err` is what a DLQ's hand-over to its next run (or a passing overload) answers. An
 * update whose workflow task failed (`FAILED_PRECONDITION: … unexpected workflow task failure`,
 * as when the task that would continue as new is refused for new signals), or that found it failed
 * (`… due to Workflow Task in failed state`, as when an activation of thousands of signals outran
 * the worker's deadlock timeout on a loaded machine and the task is being retried), was not
 * applied: the retry, with the same update ID, is safe.
 */
export function isHandOver(err: unknown): boolean {
  const message = err instanceof Error ? `${err.message} ${(err.cause as Error | undefined)?.message ?? ''}` : String(err);
  if (/already completed|workflow is closing|continued as new|update was aborted|Task not found|unexpected workflow task failure|Workflow Task in failed state/i.test(message)) return true;
  const code = isGrpcServiceError(err) ? err.code : isGrpcServiceError((err as { cause?: unknown })?.cause) ? ((err as { cause: { code: number } }).cause.code) : undefined;
  return code === GRPC.RESOURCE_EXHAUSTED || code === GRPC.ABORTED || code === GRPC.UNAVAILABLE || code === GRPC.DEADLINE_EXCEEDED;
}

/** A DLQ workflow kept refusing or not answering a call (its hand-over, or workers too busy to answer): retryable. */
export class DeadLetterBusyError extends JobsError {
  constructor(workflowId: string, cause: unknown) {
    super(ErrorType.DlqBusy, `the DLQ workflow ${workflowId} did not answer (handing over to its next run, or its workers are busy or down); try again: ${describeError(cause)}`, { cause });
  }
}

/**
 * Runs `call`, retrying (with a backoff) what a hand-over or a failing workflow task answers
 * ({@link isHandOver}); once that has lasted {@link handOverRetryMs}, throws `busy(err)`. The
 * call keeps its update ID across the retries, so one that did land is not applied twice.
 */
export async function retryHandOvers<T>(call: () => Promise<T>, busy: (cause: unknown) => Error): Promise<T> {
  const deadline = Date.now() + handOverRetryMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isHandOver(err)) throw err;
      if (Date.now() >= deadline) throw busy(err);
      await sleep(Math.min(2000, 100 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * Runs `call` against the DLQ workflow `workflowId`, retrying what a hand-over (or an overloaded
 * worker) answers; when that lasts, throws {@link DeadLetterBusyError}.
 */
export function callDeadLetterWorkflow<T>(client: Client, workflowId: string, call: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
  return retryHandOvers(() => call(client.workflow.getHandle(workflowId)), (err) => new DeadLetterBusyError(workflowId, err));
}
