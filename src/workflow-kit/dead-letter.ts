import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { jobMetrics } from '../shared/job-metrics';
import { countJob } from './job-metrics';
import type { DeadLetterActivities } from '../activity-kit/dead-letter';
import { deadLetterPresets, deadLetterWorkflowTaskTimeout } from '../catalog/dead-letter';
import { presetOptions } from '../catalog/define-job';
import { ErrorType } from '../shared/errors';
import { completeRedrive, discardEntry, failRedrive, redriveFailureMessage, redrivePayload, redrivenRunId, releaseStaleRedrives, repeatOf, type Operator } from './dead-letter-operations';
import { packState, unpackState } from './packed-state';
import { pageEntries, pageGroups, type DeadLetterGroupPage, type DeadLetterGroupPageInput, type DeadLetterPage, type DeadLetterPageInput } from './dead-letter-pages';
import {
  applyDeadLetter,
  countEntries,
  groupEntries,
  pruneEntries,
  selectEntries,
  type DeadLetterEntry,
  type DeadLetterFilter,
  type DeadLetterGroup,
  type DeadLetterInput,
  type DeadLetterState,
  type DeadLetterStatus,
} from './dead-letter-entries';
import { continueAsNewUnderCurrentProtocolWith, libraryActivities } from './library-activity-calls';

/** Input of the DLQ workflow of one job type; what it carries across continue-as-new. */
export interface DeadLetterWorkflowInput {
  /** The job type whose failures this DLQ holds. */
  type: string;
  /** Entries carried over by a run that did not pack them (the workflow's second argument packs them now). @defaultValue none */
  entries?: DeadLetterState['entries'];
  /** Continue as new after this many history events, or when Temporal suggests it. @defaultValue 10000 (4000 for runs started since 0.3) */
  continueAsNewAfterEvents?: number;
  /** Continue as new after this many signals (Temporal refuses signals past 10,000 per run). Runs started since 0.3 only. @defaultValue 2000 */
  continueAsNewAfterSignals?: number;
  /** Forget discarded and redriven entries this long after their last operation, in days. @defaultValue 30 */
  retainClosedEntriesDays?: number;
}

/** Input of {@link redriveUpdate}: the entry, the patch, and who redrives, why, in which call. */
export interface RedriveInput extends Operator {
  id: string;
  /**
   * A JSON Merge Patch applied to the payload; the result must pass the job type's schema, which
   * the worker's restart checks (the DLQ workflow, library code, knows no schemas).
   */
  patch?: unknown;
  /** The patch as the audit trail keeps it: with its sensitive fields masked. @defaultValue the patch */
  auditPatch?: unknown;
}

/** Result of {@link redriveUpdate}. */
export interface RedriveResult {
  id: string;
  /** The run the redrive started. */
  runId: string;
}

/** Input of {@link discardUpdate}: the entry, and who discards, why, in which call. */
export interface DiscardInput extends Operator {
  id: string;
}

/** Input of {@link deadLettersSignal}: the hand-offs one worker gathered for one shard. */
export interface DeadLetterBatch {
  entries: DeadLetterInput[];
}

/** A failed job arrives (sent by the hand-off of workers before 0.3, with signal-with-start). A stored contract. */
export const deadLetterSignal = defineSignal<[DeadLetterInput]>('deadLetter');
/** Failed jobs arrive, batched per worker and shard (sent by the hand-off with signal-with-start). A stored contract. */
export const deadLettersSignal = defineSignal<[DeadLetterBatch]>('deadLetters');
/** One page of the entries a filter selects, after a position. */
export const deadLetterPageQuery = defineQuery<DeadLetterPage, [DeadLetterPageInput?]>('deadLetterPage');
/** One page of the groups, by fingerprint. */
export const deadLetterGroupPageQuery = defineQuery<DeadLetterGroupPage, [DeadLetterGroupPageInput?]>('deadLetterGroupPage');
/** Every entry selected by a filter, in one result (over 2 MB it fails: read {@link deadLetterPageQuery} instead). */
export const deadLetterEntriesQuery = defineQuery<DeadLetterEntry[], [DeadLetterFilter?]>('deadLetterEntries');
/** Dead-lettered entries counted per fingerprint. */
export const deadLetterGroupsQuery = defineQuery<DeadLetterGroup[]>('deadLetterGroups');
/** Entries counted by status. */
export const deadLetterCountsQuery = defineQuery<Record<DeadLetterStatus, number>>('deadLetterCounts');
/** Starts a dead-lettered job again under its own ID, optionally with a patched payload. */
export const redriveUpdate = defineUpdate<RedriveResult, [RedriveInput]>('redrive');
/** Gives up on a dead-lettered job; the entry stays, marked discarded, for the audit trail. */
export const discardUpdate = defineUpdate<DeadLetterEntry, [DiscardInput]>('discard');

const { restartJob } = libraryActivities<DeadLetterActivities>(presetOptions(deadLetterPresets.restart));

const dayMs = 24 * 60 * 60 * 1000;

/** Packed state size past which the DLQ warns that it is filling up (Temporal's limit is 2 MB). */
const nearCapacityBytes = 1_200_000;

/**
 * The dead-letter queue of one job type: a long-running workflow that holds the jobs that failed
 * for good, and the operations an operator runs on them. Continues as new to keep its history
 * bounded, carrying its entries gzipped in its second argument (Temporal caps that input at 2 MB);
 * signals and updates that arrive during the hand-over are handled before it.
 */
export async function deadLetterWorkflow(input: DeadLetterWorkflowInput, packedEntries?: Uint8Array): Promise<void> {
  const state: DeadLetterState = { entries: packedEntries ? unpackState<DeadLetterState['entries']>(packedEntries) : (input.entries ?? {}) };
  const now = () => new Date().toISOString();
  // Runs started since 0.3 bound their signals and history more tightly (older histories replay as they ran).
  const bounded = patched('dlq-bounded-runs');
  if (bounded) releaseStaleRedrives(state);
  let signals = 0;

  const receive = (entry: DeadLetterInput) => {
    if (applyDeadLetter(state, entry)) log.info('dlq:entry', { jobId: entry.id, jobType: entry.type, fingerprint: entry.fingerprint });
  };
  setHandler(deadLetterSignal, (entry) => {
    signals += 1;
    receive(entry);
  });
  setHandler(deadLettersSignal, ({ entries }) => {
    signals += 1;
    for (const entry of entries) receive(entry);
  });
  setHandler(deadLetterEntriesQuery, (filter) => selectEntries(state, filter));
  setHandler(deadLetterPageQuery, (page) => pageEntries(state, page));
  setHandler(deadLetterGroupsQuery, () => groupEntries(state));
  setHandler(deadLetterGroupPageQuery, (page) => pageGroups(state, page));
  setHandler(deadLetterCountsQuery, () => countEntries(state));

  setHandler(
    redriveUpdate,
    async ({ id, patch, reason, by, auditPatch, requestId }) => {
      // A retry of a call this DLQ applied in an earlier run (its answer lost): that answer again.
      const repeat = repeatOf(state.entries[id], 'redrive', requestId);
      if (repeat) return { id, runId: redrivenRunId(repeat) };
      const entry = deadLettered(state, id);
      const payload = redrivePayload(entry, patch);
      entry.status = 'redriving';
      try {
        // The failed run's trace context, so that the new run is linked to it (an activity's input: no command changes).
        const traced = entry.traceContext ? { traceContext: entry.traceContext } : {};
        const { runId } = await restartJob(patch === undefined ? { type: entry.type, id, payload, ...traced } : { type: entry.type, id, payload, unpatched: entry.payload, ...traced });
        completeRedrive(state, entry, { patch: auditPatch ?? patch, runId, reason, by, requestId }, now());
        log.info('job:redriven', { jobId: id, jobType: entry.type, workflowId: id, runId, attempts: entry.attempts, patched: patch !== undefined, reason });
        countJob(jobMetrics.redriven, entry.type);
        return { id, runId };
      } catch (err) {
        // A patch the job type's schema refuses is named as such: the operator fixes the patch.
        const invalid = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === ErrorType.InvalidPayload;
        // Why the restart failed, not the wrapper's "Activity task failed".
        const why = err instanceof ActivityFailure && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err);
        // The audit says what the update's failure says: a read of the history finds the same words.
        failRedrive(entry, why, { reason, by }, now());
        throw ApplicationFailure.nonRetryable(redriveFailureMessage(id, why), invalid ? ErrorType.InvalidPayload : ErrorType.DlqInvalidState);
      }
    },
    { validator: ({ id, requestId }) => void actionable(state, id, 'redrive', requestId) },
  );

  setHandler(
    discardUpdate,
    ({ id, reason, by, requestId }) => (repeatOf(state.entries[id], 'discard', requestId) ? state.entries[id]! : discardEntry(deadLettered(state, id), { reason, by, requestId }, now())),
    { validator: ({ id, requestId }) => void actionable(state, id, 'discard', requestId) },
  );

  const limit = input.continueAsNewAfterEvents ?? (bounded ? 4000 : 10_000);
  const signalLimit = bounded ? (input.continueAsNewAfterSignals ?? 2000) : Infinity;
  await condition(() => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= limit || signals >= signalLimit);
  await condition(allHandlersFinished);
  const cutoff = new Date(Date.now() - (input.retainClosedEntriesDays ?? 30) * dayMs).toISOString();
  pruneEntries(state, cutoff);
  const packed = packState(state.entries);
  // Past 2 MB Temporal refuses the hand-over and the DLQ stalls: warn while there is room to act.
  if (packed.length > nearCapacityBytes) log.warn('dlq:near-capacity', { jobType: input.type, bytes: packed.length, entries: Object.keys(state.entries).length });
  // A shard started by an earlier release (10 s) takes the DLQ's task timeout from its next run.
  await continueAsNewUnderCurrentProtocolWith<typeof deadLetterWorkflow>({ workflowTaskTimeout: deadLetterWorkflowTaskTimeout })({ ...input, entries: undefined }, packed);
}

/** What an operation acts on: the record of the call it repeats (answered from it), or an entry in the DLQ now; rejects it otherwise. */
function actionable(state: DeadLetterState, id: string, action: 'redrive' | 'discard', requestId: string | undefined): unknown {
  return repeatOf(state.entries[id], action, requestId) ?? deadLettered(state, id);
}

/** The entry of a job that is in the DLQ now; rejects the operation otherwise. */
function deadLettered(state: DeadLetterState, id: string): DeadLetterEntry {
  const entry = state.entries[id];
  if (!entry) throw ApplicationFailure.nonRetryable(`no dead-letter entry for job "${id}"`, ErrorType.DlqEntryNotFound);
  if (entry.status !== 'dead-lettered') {
    throw ApplicationFailure.nonRetryable(`job "${id}" is ${entry.status}, not dead-lettered`, ErrorType.DlqInvalidState);
  }
  return entry;
}
