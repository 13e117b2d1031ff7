// Bulk redrive and discard over a stream of entries: one entry at a time, paced, each outcome
// reported as it happens, so that a selection of any size runs with bounded memory and a failed
// operation on one entry does not stop the rest.
import { ErrorType, JobsError, describeError } from '../shared/errors';
import type { RedriveResult } from '../workflow-kit/dead-letter';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import type { LocatedEntry } from './dead-letter-reads';
import { pacer, pooled } from './paced-pool';

/** Which dead-lettered entries a bulk operation applies to. */
export interface DeadLetterSelection {
  /** Only this job type's DLQ. @defaultValue every type */
  type?: string;
  /** Only this failure group. @defaultValue every group */
  fingerprint?: string;
  /** Only this job. */
  id?: string;
  /** Only entries that failed at or before this time (ISO 8601). @defaultValue the start of the operation, so a job that fails again meanwhile is not chased */
  failedBefore?: string;
  /** Only entries that failed at or after this time (ISO 8601). @defaultValue no bound */
  failedAfter?: string;
}

/** Options of a bulk operation. */
export interface BulkOptions {
  /** At most this many operations a second. @defaultValue unpaced */
  ratePerSecond?: number;
  /** At most this many operations in flight at once (each is an update of one DLQ shard). @defaultValue 8 */
  concurrency?: number;
  /** Report what would be done and change nothing. @defaultValue false */
  dryRun?: boolean;
  /** Why, for each entry's audit trail. */
  reason?: string;
  /** Who acts, for each entry's audit trail. @defaultValue unrecorded */
  by?: string;
  /** Stops starting operations once aborted (a pause for the rate is cut short); those in flight finish and are reported. @defaultValue never aborted */
  signal?: AbortSignal;
}

/** What came of redriving one entry. */
export interface RedriveOutcome {
  id: string;
  type: string;
  /** The payload it was (or would be) started with, its sensitive fields masked. */
  payload: unknown;
  /** The run started, when it was. */
  runId?: string;
  /** When the restart was made (ISO 8601). */
  startedAt?: string;
  /** Why it was not redriven. */
  error?: string;
  /** True for a dry run: nothing was changed. */
  dryRun?: boolean;
}

/** What came of discarding one entry. */
export interface DiscardOutcome {
  id: string;
  type: string;
  /** When it was discarded (ISO 8601). */
  discardedAt?: string;
  /** Why it was not discarded. */
  error?: string;
  /** True for a dry run: nothing was changed. */
  dryRun?: boolean;
}

/** What a bulk operation calls on the DLQ. */
export interface BulkTarget {
  patchedPayload(entry: DeadLetterEntry, patch: unknown): unknown;
  /** A payload of the entry as an outcome shows it: its sensitive fields masked. */
  shown(entry: DeadLetterEntry, payload: unknown): unknown;
  restart(located: LocatedEntry, options: { patch?: unknown; reason?: string; by?: string }): Promise<RedriveResult>;
  discard(located: LocatedEntry, options: { reason?: string; by?: string }): Promise<unknown>;
}

/** The entries to operate on: a list, or a read of the DLQs bounded by the operation's start time. */
export type BulkSource = readonly LocatedEntry[] | ((snapshot: string) => AsyncIterable<LocatedEntry>);

/** With no worker on the DLQ's queue no entry can be operated on: the whole operation stops, naming why. */
function stopWithoutWorker(err: unknown): void {
  if (err instanceof JobsError && err.type === ErrorType.DlqNoWorker) throw err;
}

/**
 * Redrives each entry, validating a patch against every entry first (a patch that one entry's
 * schema refuses restarts none: its error names the field and the job).
 */
export async function* bulkRedrive(target: BulkTarget, source: BulkSource, options: { patch?: unknown } & BulkOptions): AsyncGenerator<RedriveOutcome> {
  const snapshot = new Date().toISOString();
  const read = () => (typeof source === 'function' ? source(snapshot) : source);
  if (options.patch !== undefined) for await (const { entry } of read()) target.patchedPayload(entry, options.patch);
  if (options.dryRun) {
    for await (const { entry } of read()) yield { id: entry.id, type: entry.type, payload: target.shown(entry, target.patchedPayload(entry, options.patch)), dryRun: true };
    return;
  }
  yield* pooled(read(), options.concurrency ?? 8, pacer(options.ratePerSecond, options.signal), async (located, at): Promise<RedriveOutcome> => {
    const { entry } = located;
    const payload = target.shown(entry, target.patchedPayload(entry, options.patch));
    const startedAt = at.toISOString();
    try {
      const { runId } = await target.restart(located, options);
      return { id: entry.id, type: entry.type, payload, runId, startedAt };
    } catch (err) {
      stopWithoutWorker(err);
      return { id: entry.id, type: entry.type, payload, error: describeError(err) };
    }
  });
}

/** Discards each entry, recording the reason in its audit trail. */
export async function* bulkDiscard(target: BulkTarget, source: BulkSource, options: BulkOptions): AsyncGenerator<DiscardOutcome> {
  const snapshot = new Date().toISOString();
  const read = () => (typeof source === 'function' ? source(snapshot) : source);
  if (options.dryRun) {
    for await (const { entry } of read()) yield { id: entry.id, type: entry.type, dryRun: true };
    return;
  }
  yield* pooled(read(), options.concurrency ?? 8, pacer(options.ratePerSecond, options.signal), async (located, at): Promise<DiscardOutcome> => {
    const { entry } = located;
    try {
      await target.discard(located, { reason: options.reason, by: options.by });
      return { id: entry.id, type: entry.type, discardedAt: at.toISOString() };
    } catch (err) {
      stopWithoutWorker(err);
      return { id: entry.id, type: entry.type, error: describeError(err) };
    }
  });
}
