import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Catalog } from '../catalog/catalog';
import type { JobFairness } from '../catalog/job-fairness';
import { readJobPause } from '../catalog/read-pause';
import { startJob } from '../catalog/start-job';
import { validatePayload } from '../catalog/validate';
import { ErrorType, JobsError, describeError } from '../shared/errors';
import { nonRetryable, retryable } from '../shared/failures';

/** Input of {@link WindowActivities.startWindowJob}: the job a debounce or dedupe window closed on. */
export interface StartWindowJobInput {
  type: string;
  /** The job ID the window gave its enqueues. */
  id: string;
  /** The window's payloads in enqueue order, each validated by its client: folded by the type's `debounce.merge`, else the last one. */
  payloads: unknown[];
  /** 1 (highest) to 5 (lowest). @defaultValue Temporal's default */
  priority?: number;
  /** The fairness key and weight given at enqueue (the last enqueue's, for a window). @defaultValue what the type derives from the payload */
  fairness?: JobFairness;
  /** Wait before the first attempt, in ms. @defaultValue 0 */
  delayMs?: number;
  /** The window's first enqueue (ISO 8601): the job record's `createdAt`. */
  createdAt: string;
}

/** What {@link WindowActivities.startWindowJob} did. */
export interface StartWindowJobResult {
  /** False when the job was there already (a retried start, or the enqueue's own client started it). */
  started: boolean;
}

/** What the window activities need: a Temporal client, the deployment's shared queue, the catalog. */
export interface WindowDeps {
  client: Client;
  /** The deployment's shared task queue (the job starts on its type's queue). */
  taskQueue: string;
  catalog: Catalog;
}

/** Builds the activity that starts the job of a debounce or dedupe window. */
export function createWindowActivities({ client, taskQueue, catalog }: WindowDeps) {
  return {
    /**
     * Starts a window's job as `enqueue` starts one (same memo, search attribute, ID policy).
     * Idempotent: a job already there under the ID is the one this window started before.
     */
    async startWindowJob(input: StartWindowJobInput): Promise<StartWindowJobResult> {
      const definition = catalog.definition(input.type);
      // A newer worker may know the type: wait for it rather than lose the window.
      if (!definition) throw retryable(ErrorType.UnknownJobType, `this worker's catalog has no job type ${input.type} (the window's job waits for a worker that has)`);
      let payload: unknown;
      try {
        const merge = definition.debounce?.merge as ((previous: unknown, next: unknown) => unknown) | undefined;
        const folded = merge ? input.payloads.reduce((previous, next) => merge(previous, next)) : input.payloads[input.payloads.length - 1];
        // Keys a newer client added and this worker's schema lacks are kept, as a redrive keeps them.
        payload = validatePayload(catalog, input.type, folded, 'keep');
      } catch (err) {
        // A merge that throws or folds into a payload the schema refuses: retrying cannot fix either.
        if (err instanceof JobsError) throw nonRetryable(err.type, `the window's merged payload: ${err.detail}`, err);
        throw nonRetryable(ErrorType.InvalidPayload, `the job type's debounce.merge threw: ${describeError(err)}`, err);
      }
      const signal = Context.current().cancellationSignal;
      try {
        // A paused type's window job starts knowing it, as an enqueue's does (read uncached: a
        // window closes once, and a pause that came during it must hold its job).
        const paused = await client.withAbortSignal(signal, () => readJobPause(client, taskQueue, input.type));
        await client.withAbortSignal(signal, () =>
          startJob(client, { definition, id: input.id, payload, taskQueue, priority: input.priority, fairness: input.fairness, delayMs: input.delayMs, createdAt: input.createdAt, mode: 'enqueue', paused }),
        );
        return { started: true };
      } catch (err) {
        if (err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError') return { started: false };
        if (signal.aborted) throw signal.reason;
        throw err;
      }
    },
  };
}

/** The window activities, as workflow code sees them through `proxyActivities`. */
export type WindowActivities = ReturnType<typeof createWindowActivities>;
