import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { JobClient } from '../client/job-client';
import { startJob } from '../client/start-job';
import { validatePayload } from '../client/validate';
import { deadLetterWorkflowId, normaliseFailureMessage } from '../catalog/dead-letter';
import { isJobType } from '../jobs/registry';
import { ErrorType, nonRetryable } from '../shared/errors';
import type { DeadLetterInput } from '../workflow/dead-letter-entries';
import type { ActivityDeps } from '../activities/index';

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

/** Input of {@link restartJob}. */
export interface RestartJobInput {
  type: string;
  id: string;
  payload: unknown;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Attempts of the activity with this ID in a run's history: the attempt its last start recorded. */
export function activityAttempts(events: HistoryEvent[], activityId: string): number {
  let scheduledEventId: number | undefined;
  let attempts = 0;
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes?.activityId === activityId) scheduledEventId = Number(e.eventId);
    const started = e.activityTaskStartedEventAttributes;
    if (started && Number(started.scheduledEventId) === scheduledEventId) attempts = started.attempt ?? attempts;
  }
  return attempts;
}

/** The fingerprint of a failure: the error type plus its normalised message, hashed short. */
export function failureFingerprint(error: { type?: string; message: string }): { fingerprint: string; fingerprintText: string } {
  const fingerprintText = `${error.type ?? 'error'}: ${normaliseFailureMessage(error.message)}`;
  return { fingerprint: createHash('sha256').update(fingerprintText).digest('hex').slice(0, 12), fingerprintText };
}

/** Builds the activities that connect jobs and the dead-letter queue. */
export function createDeadLetterActivities(deps: Pick<ActivityDeps, 'temporal'>) {
  const { client, taskQueue } = deps.temporal;

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
    handOffToDeadLetter: (input: HandOffInput): Promise<{ dlqWorkflowId: string }> => cancellable(async () => {
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
      Context.current().log.info('job:dead-lettered', { jobId: input.id, jobType: input.type, dlq: dlqWorkflowId, fingerprint: entry.fingerprint });
      return { dlqWorkflowId };
    }),

    /** Starts a dead-lettered job again under its own ID (the one path that may reuse a failed ID). */
    async restartJob(input: RestartJobInput): Promise<{ runId: string }> {
      const { type } = input;
      if (!isJobType(type)) throw nonRetryable(ErrorType.UnknownJobType, `unknown job type ${type}`);
      const payload = validatePayload(type, input.payload);
      // The record keeps the first enqueue time, not the redrive's; unreadable, the redrive still goes ahead.
      const createdAt = await new JobClient(client, { taskQueue }).createdAt(input.id).catch(() => undefined);
      try {
        const handle = await cancellable(() => startJob(client, { type, id: input.id, payload, taskQueue, mode: 'redrive', createdAt }));
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
