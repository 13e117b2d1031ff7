import type { Client, WorkflowHandle } from '@temporalio/client';
import { jobProtocolMemo } from '../shared/job-protocol';
import type { Catalog } from '../catalog/catalog';
import { jobMaxAttempts } from '../catalog/define-job';
import type { PreparedJob } from '../catalog/prepare-job';
import { debounceEnqueueSignalName, debouncedJobId, debounceWorkflowId, debounceWorkflowType, parseDebouncedJobId } from '../catalog/window-ids';
import { missingSearchAttributeIn } from '../shared/missing-search-attribute';
import { decodeFailureMessages } from './decode';
import type { JobRecord } from './job-record';
import { debounceWindowQuery, type DebounceEnqueue, type DebounceWindowState, type DebounceWorkflowInput } from '../workflow-kit/debounce';

/** How long a status read waits for a debouncer to answer its window query. */
const windowQueryTimeoutMs = 3000;

/**
 * Adds a debounced enqueue to its key's window with signal-with-start (the debouncer is started if
 * the key has none running) and returns the ID its window's job will have, built from the run the
 * signal reached. `existed` is false: the job starts when the window closes.
 */
export async function enqueueDebounced(temporal: Client, taskQueue: string, job: PreparedJob & { debounce: NonNullable<PreparedJob['debounce']> }): Promise<{ id: string; existed: boolean; handle: WorkflowHandle }> {
  const { definition, payload, priority, fairness, debounce } = job;
  const { type } = definition;
  const enqueue: DebounceEnqueue = { payload, delayMs: debounce.delayMs, maxDelayMs: debounce.maxDelayMs, priority, fairness };
  const input: DebounceWorkflowInput = { type, key: debounce.key };
  try {
    const debouncer = await temporal.workflow.signalWithStart(debounceWorkflowType, {
      workflowId: debounceWorkflowId(type, debounce.key),
      taskQueue,
      args: [input],
      signal: debounceEnqueueSignalName,
      signalArgs: [enqueue],
      memo: jobProtocolMemo(),
      staticSummary: `debounce window of ${type} ${debounce.key}`,
    });
    const id = debouncedJobId(type, debounce.key, debouncer.signaledRunId);
    return { id, existed: false, handle: temporal.workflow.getHandle(id) };
  } catch (err) {
    throw missingSearchAttributeIn(err, temporal.options.namespace) ?? err;
  }
}

/**
 * The window a debounced job ID waits in, while it has not started: its debouncer run is still
 * collecting (it answers its query), or has just closed and its next run is starting the job.
 * Undefined for any other ID, or when the window's run is gone.
 */
export async function pendingDebounceWindow(
  temporal: Client,
  id: string,
): Promise<(Partial<DebounceWindowState> & { type: string; closed: boolean; startFailure?: { type?: string; message: string; at?: string } }) | undefined> {
  const parsed = parseDebouncedJobId(id);
  if (!parsed) return undefined;
  const workflowId = debounceWorkflowId(parsed.type, parsed.key);
  try {
    const run = await temporal.workflow.getHandle(workflowId, parsed.runId).describe();
    if (run.status.name === 'RUNNING') {
      const state = await temporal
        .withDeadline(Date.now() + windowQueryTimeoutMs, () => temporal.workflow.getHandle(workflowId, parsed.runId).query(debounceWindowQuery))
        .catch(() => undefined);
      // Unanswered (no worker), the run's start stands in for the first enqueue.
      return { firstAt: run.startTime.toISOString(), ...state, jobId: id, type: parsed.type, closed: false };
    }
    // Continued as new: the next run starts this window's job first, or failed to (a bad merge).
    if (run.status.name === 'CONTINUED_AS_NEW') return { jobId: id, type: parsed.type, closed: true, startFailure: await startFailure(temporal, workflowId, parsed.runId) };
  } catch {
    return undefined;
  }
  return undefined;
}

/** Why the run after `runId` could not start the window's job (its non-retryable `startWindowJob` failure), if it could not. */
async function startFailure(temporal: Client, workflowId: string, runId: string): Promise<{ type?: string; message: string; at?: string } | undefined> {
  const closed = (await temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  const next = closed.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  if (!next) return undefined;
  const events = (await temporal.workflow.getHandle(workflowId, next).fetchHistory()).events ?? [];
  const failed = events.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes?.failure;
  if (!failed) return undefined;
  await decodeFailureMessages(temporal, [failed]);
  const at = events.find((e) => e.activityTaskFailedEventAttributes)?.eventTime;
  return { type: failed.applicationFailureInfo?.type ?? undefined, message: failed.message ?? 'the start failed', at: at ? new Date(Number(at.seconds) * 1000).toISOString() : undefined };
}

/**
 * The record of a debounced job that has not started yet, read from its window: `scheduled`, no
 * attempt, the last payload collected and the first enqueue as `createdAt`. Undefined when `id`
 * names no such window.
 */
export async function pendingDebouncedRecord(temporal: Client, id: string, catalog?: Pick<Catalog, 'definition'>): Promise<JobRecord | undefined> {
  const window = await pendingDebounceWindow(temporal, id);
  if (!window) return undefined;
  const definition = catalog?.definition(window.type);
  const failure = window.startFailure;
  if (failure) {
    return { id, type: window.type, payload: undefined, status: 'failed', attempts: 0, maxAttempts: 0, createdAt: failure.at ?? new Date().toISOString(), failedAt: failure.at, error: { type: failure.type, message: `the debounce window's job could not start: ${failure.message}` } };
  }
  return {
    id,
    type: window.type,
    payload: window.payload,
    status: 'scheduled',
    attempts: 0,
    maxAttempts: definition ? jobMaxAttempts(definition) : 0,
    createdAt: window.firstAt ?? new Date().toISOString(),
    steps: definition?.steps,
    debounce: window.closed ? { closed: true } : { closed: false, enqueues: window.enqueues, firesAt: window.firesAt },
  };
}
