// The console's bulk redrives and discards as BulkTasks: the DLQ client's streaming redriveAll and
// discardAll over a selection pinned to a snapshot time, paced at the operator's rate, each
// outcome a step of the task. Nothing here loops in a page: the task runs in the console process.
import { describeError, InvalidPayloadError } from '../shared/errors';
import type { BulkStep, BulkTask } from './bulk-tasks';
import type { ConsoleDeps } from './context';
import { describeSelection, type ConsoleSelection } from './selection';

/** What a bulk redrive or discard is given besides its selection. */
export interface BulkWorkOptions {
  /** Who started it: recorded as `by` on every entry it acts on. */
  by: string;
  ratePerSecond: number;
  reason?: string;
  /** The JSON Merge Patch of a redrive. */
  patch?: unknown;
}

/** The selection pinned to `now` (unless it has an earlier bound), as the CLI's bulk operations pin theirs. */
export function pinned(selection: ConsoleSelection, now = new Date()): ConsoleSelection {
  return { ...selection, failedBefore: selection.failedBefore ?? now.toISOString() };
}

/**
 * Counts the selected dead-lettered entries and checks a patch against each (the check redriveAll
 * makes again before its first restart). Throws InvalidPayloadError naming the job and the field.
 */
export async function scanSelection(deps: Pick<ConsoleDeps, 'jobs'>, selection: ConsoleSelection, patch?: unknown): Promise<number> {
  let count = 0;
  for await (const entry of deps.jobs.deadLetters.entries({ ...selection, status: 'dead-lettered' })) {
    count += 1;
    if (patch === undefined) continue;
    try {
      deps.jobs.deadLetters.patchedPayload(entry, patch);
    } catch (err) {
      if (err instanceof InvalidPayloadError) throw new InvalidPayloadError(err.jobType, err.issues.map((i) => ({ ...i, message: `${i.message} (job ${entry.id})` })));
      throw err;
    }
  }
  return count;
}

/**
 * Operations in flight at once for a rate: one below 10/s, so that progress and a cancel take
 * effect an operation at a time; more above it, or one DLQ update's round trip would cap the rate.
 */
export function concurrencyFor(ratePerSecond: number): number {
  return Math.max(1, Math.ceil(ratePerSecond / 10));
}

async function* steps<O extends { id: string; error?: string }>(outcomes: AsyncIterable<O>, signal: AbortSignal): AsyncGenerator<BulkStep> {
  for await (const o of outcomes) {
    yield o.error === undefined ? { id: o.id, ok: true } : { id: o.id, ok: false, message: describeError(o.error) };
    if (signal.aborted) return;
  }
}

function pacing(ratePerSecond: number, signal: AbortSignal) {
  return { ratePerSecond, concurrency: concurrencyFor(ratePerSecond), signal };
}

/** Starts redriving the selection (pinned by the caller) as a task; `count` is for its title. */
export function startRedriveTask(deps: Pick<ConsoleDeps, 'jobs' | 'tasks'>, selection: ConsoleSelection, count: number, options: BulkWorkOptions): BulkTask {
  const title = `redrive ${count} ${describeSelection(selection)} at ${options.ratePerSecond}/s${options.patch === undefined ? '' : ' with a patch'}`;
  return deps.tasks.start(title, options.by, (signal) =>
    steps(deps.jobs.deadLetters.redriveAll(selection, { patch: options.patch, reason: options.reason, by: options.by, ...pacing(options.ratePerSecond, signal) }), signal),
  );
}

/** Starts discarding the selection (pinned by the caller) as a task; `count` is for its title. */
export function startDiscardTask(deps: Pick<ConsoleDeps, 'jobs' | 'tasks'>, selection: ConsoleSelection, count: number, options: BulkWorkOptions): BulkTask {
  const title = `discard ${count} ${describeSelection(selection)} at ${options.ratePerSecond}/s`;
  return deps.tasks.start(title, options.by, (signal) =>
    steps(deps.jobs.deadLetters.discardAll(selection, { reason: options.reason, by: options.by, ...pacing(options.ratePerSecond, signal) }), signal),
  );
}
