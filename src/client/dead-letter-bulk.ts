// Bulk redrive and discard over a stream of entries: one entry at a time, paced, each outcome
// reported as it happens, so that a selection of any size runs with bounded memory and a failed
// operation on one entry does not stop the rest.
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorType, JobsError, describeError } from '../shared/errors';
import type { RedriveResult } from '../workflow-kit/dead-letter';
import type { DeadLetterEntry } from '../workflow-kit/dead-letter-entries';
import type { LocatedEntry } from './dead-letter-reads';

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

/** Waits so that two operations start at least `1 / rate` seconds apart; returns the start time, or nothing once `signal` is aborted. */
function pacer(ratePerSecond?: number, signal?: AbortSignal): () => Promise<Date | undefined> {
  let last: number | undefined;
  return async () => {
    if (ratePerSecond && last !== undefined) {
      const wait = last + 1000 / ratePerSecond - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    }
    if (signal?.aborted) return undefined;
    last = Date.now();
    return new Date(last);
  };
}

/**
 * Runs `run` over `items` with at most `concurrency` in flight, each started after `pace` (until
 * it answers nothing: aborted), and yields the outcomes in the order the items came. `run` reports
 * failures in its outcome, and rejects only to stop the whole operation.
 */
async function* pooled<I, O>(items: AsyncIterable<I> | Iterable<I>, concurrency: number, pace: () => Promise<Date | undefined>, run: (item: I, startedAt: Date) => Promise<O>): AsyncGenerator<O> {
  const inFlight: Promise<O>[] = [];
  let stopping = false;
  try {
    for await (const item of items) {
      // A call that stops the operation stops the starting of others at once, not when its turn comes.
      const at = stopping ? undefined : await pace();
      if (!at || stopping) break;
      const call = run(item, at);
      call.catch(() => (stopping = true)); // and no rejection is left unhandled if the caller stops reading
      inFlight.push(call);
      if (inFlight.length >= Math.max(1, concurrency)) yield await inFlight.shift()!;
    }
    while (inFlight.length > 0) yield await inFlight.shift()!;
  } catch (err) {
    // The operation stops (no worker answers): the calls already sent end first (each gives up once
    // no worker has polled for 20 s) and are reported, so that every entry acted on is named; then the stop.
    for (const settled of await Promise.allSettled(inFlight.splice(0))) if (settled.status === 'fulfilled') yield settled.value;
    throw err;
  }
}

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
