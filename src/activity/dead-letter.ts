import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import { readCreatedAt } from '../catalog/created-at';
import { deadLetterWorkflowId, normaliseFailureMessage } from '../catalog/dead-letter';
import { startJob } from '../catalog/start-job';
import { validatePatchedPayload, validatePayload } from '../catalog/validate';
import { activityAttempts } from '../shared/attempts';
import { ErrorType, JobsError, nonRetryable } from '../shared/errors';
import type { DeadLetterInput } from '../workflow/dead-letter-entries';

/** Input of {@link handOffToDeadLetter}: what the failing job's workflow knows about itself. */
export interface HandOffInput {
  id: string;
  type: string;
  runId: string;
  payload: unknown;
  error: { type?: string; message: string };
  /** The activity whose failure ended the job, when one did; its attempts are read from history. */
  failedActivityId?: string;
}

/** What {@link handOffToDeadLetter} did: the DLQ that holds the job now, and the failure's group there. */
export interface HandOffResult {
  /** The workflow ID of the job type's DLQ. */
  dlqWorkflowId: string;
  /** The failure's fingerprint (see {@link failureFingerprint}). Unset in histories from before it was returned. */
  fingerprint?: string;
}

/** Input of {@link restartJob}. */
export interface RestartJobInput {
  type: string;
  id: string;
  /** The payload to start with: the entry's own, or patched. */
  payload: unknown;
  /** For a patched redrive, the payload before the patch: the patch may not change what the job ID derives from. @defaultValue unpatched */
  unpatched?: unknown;
}

/** What the DLQ activities need: a Temporal client, the deployment's shared queue, the catalog. */
export interface DeadLetterDeps {
  /** A Temporal client on the worker's namespace. */
  client: Client;
  /** The deployment's shared task queue, which names and runs the DLQs. */
  taskQueue: string;
  /** The job types, to validate a redrive's payload and find its definition. */
  catalog: Catalog;
}

/** The fingerprint of a failure: the error type plus its normalised message, hashed short. */
export function failureFingerprint(error: { type?: string; message: string }): { fingerprint: string; fingerprintText: string } {
  const fingerprintText = `${error.type ?? 'error'}: ${normaliseFailureMessage(error.message)}`;
  return { fingerprint: createHash('sha256').update(fingerprintText).digest('hex').slice(0, 12), fingerprintText };
}

/** Builds the activities that connect jobs and the dead-letter queue. */
export function createDeadLetterActivities({ client, taskQueue, catalog }: DeadLetterDeps) {

  /**
   * Runs Temporal client calls under the attempt's cancellation signal, so that a worker shutdown or
   * a timed-out attempt aborts them instead of waiting them out. Safe: the DLQ ignores a repeated
   * hand-off, and a redrive that did start is found by the retry.
   */
  async function cancellable<T>(call: () => Promise<T>): Promise<T> {
    const signal = Context.current().cancellationSignal;
    try {
      return await client.withAbortSignal(signal, call);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw err;
    }
  }

  async function attemptsOf(input: HandOffInput): Promise<number> {
    if (input.failedActivityId === undefined) return 0;
    const history = await client.workflow.getHandle(input.id, input.runId).fetchHistory();
    return activityAttempts(history.events ?? [], input.failedActivityId);
  }

  return {
    /**
     * Hands a job that failed for good to its type's DLQ workflow with signal-with-start, so the
     * DLQ need not exist beforehand. Retried until it succeeds; the DLQ ignores a repeat of the same run.
     */
    handOffToDeadLetter: (input: HandOffInput): Promise<HandOffResult> => cancellable(async () => {
      const entry: DeadLetterInput = {
        id: input.id,
        type: input.type,
        runId: input.runId,
        payload: input.payload,
        attempts: await attemptsOf(input),
        failedAt: new Date().toISOString(),
        error: input.error,
        ...failureFingerprint(input.error),
      };
      const dlqWorkflowId = deadLetterWorkflowId(taskQueue, input.type);
      await startDeadLetterQueue(client, taskQueue, input.type, entry);
      // The job's interceptor logs job:dead-lettered once, with what this returns; this line is for
      // following a hand-off's retries.
      Context.current().log.debug('dlq:handed-off', { jobId: input.id, jobType: input.type, dlq: dlqWorkflowId, fingerprint: entry.fingerprint });
      return { dlqWorkflowId, fingerprint: entry.fingerprint };
    }),

    /** Starts a dead-lettered job again under its own ID (the one path that may reuse a failed ID). */
    async restartJob(input: RestartJobInput): Promise<{ runId: string }> {
      const { type } = input;
      let payload: unknown;
      try {
        payload = input.unpatched === undefined ? validatePayload(catalog, type, input.payload) : validatePatchedPayload(catalog, type, input.unpatched, input.payload);
      } catch (err) {
        // An unknown type or a payload its schema refuses: retrying cannot fix either.
        if (err instanceof JobsError) throw nonRetryable(err.type, err.detail, err);
        throw err;
      }
      const definition = catalog.definition(type)!;
      // The record keeps the first enqueue time, not the redrive's; unreadable, the redrive still goes ahead.
      const createdAt = await readCreatedAt(client, input.id).then((d) => d.toISOString(), () => undefined);
      try {
        const handle = await cancellable(() => startJob(client, { definition, id: input.id, payload, taskQueue, mode: 'redrive', createdAt }));
        return { runId: handle.firstExecutionRunId };
      } catch (err) {
        if (err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError') {
          throw nonRetryable(ErrorType.DlqInvalidState, `job ${input.id} is running or completed; only a failed job can be redriven`, err);
        }
        throw err;
      }
    },
  };
}

/** The DLQ activities, as workflow code sees them through `proxyActivities`. */
export type DeadLetterActivities = ReturnType<typeof createDeadLetterActivities>;

/** Signal-with-start of a job type's DLQ workflow. */
export async function startDeadLetterQueue(client: Client, taskQueue: string, type: string, entry: DeadLetterInput): Promise<void> {
  await client.workflow.signalWithStart('deadLetterWorkflow', {
    workflowId: deadLetterWorkflowId(taskQueue, type),
    taskQueue,
    args: [{ type }],
    signal: 'deadLetter',
    signalArgs: [entry],
    staticSummary: `dead-letter queue of ${type}`,
  });
}
