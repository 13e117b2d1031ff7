// Bulk redrive and discard over a stream of entries: one entry at a time, paced, each outcome
// reported as it happens, so that a selection of any size runs with bounded memory and a failed
// operation on one entry does not stop the rest.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe } from '../shared/errors';
import type { RedriveResult } from '../workflow/dead-letter';
import type { DeadLetterEntry } from '../workflow/dead-letter-entries';
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
  /** At most this many operations a second. @defaultValue one after another, unpaced */
  ratePerSecond?: number;
  /** Report what would be done and change nothing. @defaultValue false */
  dryRun?: boolean;
  /** Why, for each entry's audit trail. */
  reason?: string;
}

/** What came of redriving one entry. */
export interface RedriveOutcome {
  id: string;
  type: string;
  /** The payload it was (or would be) started with. */
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
  restart(located: LocatedEntry, options: { patch?: unknown; reason?: string }): Promise<RedriveResult>;
  discard(located: LocatedEntry, reason?: string): Promise<unknown>;
}

/** The entries to operate on: a list, or a read of the DLQs bounded by the operation's start time. */
export type BulkSource = readonly LocatedEntry[] | ((snapshot: string) => AsyncIterable<LocatedEntry>);

/** Waits so that two operations start at least `1 / rate` seconds apart; returns the start time. */
function pacer(ratePerSecond?: number): () => Promise<Date> {
  let last: number | undefined;
  return async () => {
    if (ratePerSecond && last !== undefined) {
      const wait = last + 1000 / ratePerSecond - Date.now();
      if (wait > 0) await sleep(wait);
    }
    last = Date.now();
    return new Date(last);
  };
}

/**
 * Redrives each entry, validating a patch against every entry first (a patch that one entry's
 * schema refuses restarts none: its error names the field and the job).
 */
export async function* bulkRedrive(target: BulkTarget, source: BulkSource, options: { patch?: unknown; reason?: string } & Omit<BulkOptions, 'reason'>): AsyncGenerator<RedriveOutcome> {
  const snapshot = new Date().toISOString();
  const read = () => (typeof source === 'function' ? source(snapshot) : source);
  if (options.patch !== undefined) for await (const { entry } of read()) target.patchedPayload(entry, options.patch);
  const pace = pacer(options.ratePerSecond);
  for await (const located of read()) {
    const { entry } = located;
    const payload = target.patchedPayload(entry, options.patch);
    if (options.dryRun) {
      yield { id: entry.id, type: entry.type, payload, dryRun: true };
      continue;
    }
    const startedAt = (await pace()).toISOString();
    try {
      const { runId } = await target.restart(located, options);
      yield { id: entry.id, type: entry.type, payload, runId, startedAt };
    } catch (err) {
      yield { id: entry.id, type: entry.type, payload, error: describe(err) };
    }
  }
}

/** Discards each entry, recording the reason in its audit trail. */
export async function* bulkDiscard(target: BulkTarget, source: BulkSource, options: BulkOptions): AsyncGenerator<DiscardOutcome> {
  const snapshot = new Date().toISOString();
  const pace = pacer(options.ratePerSecond);
  for await (const located of typeof source === 'function' ? source(snapshot) : source) {
    const { entry } = located;
    if (options.dryRun) {
      yield { id: entry.id, type: entry.type, dryRun: true };
      continue;
    }
    const discardedAt = (await pace()).toISOString();
    try {
      await target.discard(located, options.reason);
      yield { id: entry.id, type: entry.type, discardedAt };
    } catch (err) {
      yield { id: entry.id, type: entry.type, error: describe(err) };
    }
  }
}
