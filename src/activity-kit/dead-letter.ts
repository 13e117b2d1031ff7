import { createHash } from 'node:crypto';
import { jobProtocolMemo } from '../shared/job-protocol';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import { readCreatedAt } from '../catalog/created-at';
import { deadLetterWorkflowId, deadLetterWorkflowTaskTimeout, normaliseFailureMessage } from '../catalog/dead-letter';
import { scrubSensitive } from '../catalog/sensitive';
import { deadLetterShardOf, deadLetterShardWorkflowId } from '../catalog/dead-letter-shards';
import { startJob } from '../catalog/start-job';
import { previousPriority } from '../catalog/previous-priority';
import { readJobPause } from '../catalog/read-pause';
import { validatePatchedPayload, validatePayload } from '../catalog/validate';
import { activityAttempts } from '../shared/attempts';
import { ErrorType, JobsError } from '../shared/errors';
import { nonRetryable } from '../shared/failures';
import type { TraceCarrier } from '../shared/tracing-env';
import type { DeadLetterInput } from '../catalog/dead-letter-entry';
import { HandOffBatcher } from './hand-off-batcher';

/** Input of {@link handOffToDeadLetter}: what the failing job's workflow knows about itself. */
export interface HandOffInput {
  id: string;
  type: string;
  runId: string;
  payload: unknown;
  error: { type?: string; message: string };
  /** The activity whose failure ended the job, when one did; its attempts are read from history. */
  failedActivityId?: string;
  /** When the job was first enqueued (ISO 8601), when the workflow knows it; else read from Temporal. */
  createdAt?: string;
  /**
   * The job's final state (a JobState), for its record: the record reads it from this call's scheduled event
   * (src/client/closed-state-read.ts), so the job writes no memo for it. Unused here. Absent in
   * hand-offs from before protocol 3.
   */
  state?: unknown;
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
  /** The failed run's trace context, kept in its DLQ entry: the new run is linked to it. @defaultValue none */
  traceContext?: TraceCarrier;
}

/**
 * How the DLQ activities take part in tracing, given by a worker that traces (none otherwise, so
 * nothing of OpenTelemetry is loaded): what an entry keeps of the failed run's trace, and the span
 * a redrive starts its run under.
 */
export interface DeadLetterTracing {
  /** The active trace context, to keep in the entry. */
  capture(): TraceCarrier | undefined;
  /** Runs `start` under a new span linked to the failed run's trace. */
  linkedTo<T>(carrier: TraceCarrier, attributes: Record<string, string>, start: () => Promise<T>): Promise<T>;
}

/** What the DLQ activities need: a Temporal client, the deployment's shared queue, the catalog. */
export interface DeadLetterDeps {
  /** A Temporal client on the worker's namespace. */
  client: Client;
  /** The deployment's shared task queue, which names and runs the DLQs. */
  taskQueue: string;
  /** The job types, to validate a redrive's payload and find its definition. */
  catalog: Catalog;
  /** Least time between two hand-off batches to one DLQ shard, in ms. @defaultValue 200 */
  handOffLingerMs?: number;
  /** Tracing of hand-offs and redrives. @defaultValue none (tracing off) */
  tracing?: DeadLetterTracing;
}

/** The fingerprint of a failure: the error type plus its normalised message, hashed short. */
export function failureFingerprint(error: { type?: string; message: string }): { fingerprint: string; fingerprintText: string } {
  const fingerprintText = `${error.type ?? 'error'}: ${normaliseFailureMessage(error.message)}`;
  return { fingerprint: createHash('sha256').update(fingerprintText).digest('hex').slice(0, 12), fingerprintText };
}

/** Builds the activities that connect jobs and the dead-letter queue. */
export function createDeadLetterActivities({ client, taskQueue, catalog, handOffLingerMs, tracing }: DeadLetterDeps) {
  const batcher = new HandOffBatcher<DeadLetterInput>({
    lingerMs: handOffLingerMs,
    // A batch carries several activities' hand-offs: it runs under its own deadline, not the
    // cancellation of whichever attempt happened to send it.
    send: (workflowId, entries) => client.withAbortSignal(AbortSignal.timeout(20_000), () => sendDeadLetters(client, taskQueue, workflowId, entries)),
  });

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
     * Hands a job that failed for good to its shard of its type's DLQ, batched with this worker's
     * other hand-offs to that shard and sent with signal-with-start, so the DLQ need not exist
     * beforehand. Retried until it succeeds; the DLQ ignores a repeat of the same run.
     */
    handOffToDeadLetter: (input: HandOffInput): Promise<HandOffResult> => cancellable(async () => {
      // A message that quotes a sensitive value keeps the mask instead (so does the fingerprint).
      const sensitive = catalog.definition(input.type)?.sensitive;
      const error = { ...input.error, message: scrubSensitive(input.error.message, input.payload, sensitive) };
      const entry: DeadLetterInput = {
        id: input.id,
        type: input.type,
        runId: input.runId,
        payload: input.payload,
        attempts: await attemptsOf(input),
        failedAt: new Date().toISOString(),
        error,
        ...failureFingerprint(error),
        ...(sensitive?.length ? { sensitive: [...sensitive] } : {}),
      };
      const createdAt = input.createdAt ?? (await readCreatedAt(client, input.id).then((d) => d.toISOString(), () => undefined));
      if (createdAt) entry.createdAt = createdAt;
      const traceContext = tracing?.capture();
      if (traceContext) entry.traceContext = traceContext;
      const dlqWorkflowId = deadLetterShardWorkflowId(taskQueue, input.type, deadLetterShardOf(input.id));
      await batcher.submit(dlqWorkflowId, entry);
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
        // A redrive keeps the fields a newer client added that this worker's schema does not know.
        payload = input.unpatched === undefined ? validatePayload(catalog, type, input.payload, 'keep') : validatePatchedPayload(catalog, type, input.unpatched, input.payload);
      } catch (err) {
        // An unknown type or a payload its schema refuses: retrying cannot fix either.
        if (err instanceof JobsError) throw nonRetryable(err.type, err.detail, err);
        throw err;
      }
      const definition = catalog.definition(type)!;
      // The record keeps the first enqueue time, not the redrive's; unreadable, the redrive still goes ahead.
      const createdAt = await readCreatedAt(client, input.id).then((d) => d.toISOString(), () => undefined);
      // The same job: it keeps the priority and fairness key it failed with (the type's derived ones if that run is gone).
      const { priority, fairness } = await previousPriority(client, input.id);
      try {
        // A redrive of a paused type starts knowing it, like an enqueue.
        const paused = await readJobPause(client, taskQueue, type);
        const start = () => cancellable(() => startJob(client, { definition, id: input.id, payload, taskQueue, mode: 'redrive', createdAt, priority, fairness, paused }));
        const handle = tracing && input.traceContext ? await tracing.linkedTo(input.traceContext, { 'job.id': input.id, 'job.type': type }, start) : await start();
        return { runId: handle.firstExecutionRunId };
      } catch (err) {
        if (err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError') {
          throw nonRetryable(ErrorType.DlqInvalidState, `job ${input.id} is running or completed; only a failed job can be redriven`, err);
        }
        // The type's fairness refused the (patched) payload: retrying cannot fix it either.
        if (err instanceof JobsError) throw nonRetryable(err.type, err.detail, err);
        throw err;
      }
    },
  };
}

/** The DLQ activities, as workflow code sees them through `proxyActivities`. */
export type DeadLetterActivities = ReturnType<typeof createDeadLetterActivities>;

/** Signal-with-start of one DLQ shard with a batch of hand-offs. */
export async function sendDeadLetters(client: Client, taskQueue: string, workflowId: string, entries: DeadLetterInput[]): Promise<void> {
  const type = entries[0]!.type;
  await client.workflow.signalWithStart('deadLetterWorkflow', {
    workflowId,
    taskQueue,
    args: [{ type }],
    signal: 'deadLetters',
    signalArgs: [{ entries }],
    memo: jobProtocolMemo(),
    workflowTaskTimeout: deadLetterWorkflowTaskTimeout,
    staticSummary: `dead-letter queue of ${type}`,
  });
}

/** Signal-with-start of a job type's unsharded DLQ workflow with one hand-off, as workers before 0.3 sent it. */
export async function startDeadLetterQueue(client: Client, taskQueue: string, type: string, entry: DeadLetterInput): Promise<void> {
  await client.workflow.signalWithStart('deadLetterWorkflow', {
    workflowId: deadLetterWorkflowId(taskQueue, type),
    taskQueue,
    args: [{ type }],
    signal: 'deadLetter',
    signalArgs: [entry],
    memo: jobProtocolMemo(),
    workflowTaskTimeout: deadLetterWorkflowTaskTimeout,
    staticSummary: `dead-letter queue of ${type}`,
  });
}
