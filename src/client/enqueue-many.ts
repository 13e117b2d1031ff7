// Bulk enqueue: every item validated first, then started with bounded concurrency, each item's
// outcome reported. Idempotent by job ID, so a second run after an interruption starts only what
// the first did not.
import type { Duration } from '@temporalio/common';
import type { Catalog, PayloadSchemas } from '../catalog/catalog';
import type { FairnessOptions } from '../catalog/fairness';
import { prepareJob, type PreparedJob } from '../catalog/prepare-job';
import { IdConflictError, InvalidOptionError, InvalidPayloadError, UnknownJobTypeError, describeError, formatIssues, type FieldIssue } from '../shared/errors';

/** One job of {@link enqueueMany}. */
export interface EnqueueManyItem<P = unknown> {
  /** The payload, validated like `enqueue`'s. */
  payload: P;
  /**
   * The job ID. An item without one gets the type's idempotency key, else a random ID, so it is
   * not resumable: give IDs (jobctl derives them from each line) to make a rerun start only what is
   * missing. @defaultValue the type's idempotency key, else `<type>-<random UUID>`
   */
  id?: string;
  /** How errors and outcomes name the item, e.g. `line 7`. @defaultValue `items[<index>]` */
  label?: string;
}

/** Options of {@link enqueueMany}: applied to every item. */
export interface EnqueueManyOptions extends FairnessOptions {
  /** Wait this long before each job's first attempt. @defaultValue no delay */
  delay?: Duration;
  /** 1 (highest) to 5 (lowest), as `enqueue`'s. @defaultValue 3 */
  priority?: number;
  /** Starts in flight at once, 1 to 256. @defaultValue 32 */
  concurrency?: number;
  /** Start the valid items and report the invalid ones as `invalid`, instead of starting nothing. @defaultValue false */
  skipInvalid?: boolean;
  /** Called once per item as its outcome is known (started, existed, conflict or failed), e.g. for a progress bar. @defaultValue none */
  onOutcome?: (outcome: EnqueueManyOutcome) => void;
}

/** What happened to one item. */
export interface EnqueueManyOutcome {
  /** The item's index in the input. */
  index: number;
  /** The item's label (its `label`, else `items[<index>]`). */
  label: string;
  /** The job ID; unset for an item that failed validation. */
  id?: string;
  /**
   * `started`: a new job; `existed`: a job with this ID and payload was there, nothing new ran;
   * `conflict`: the ID is held by a job with another payload or type; `invalid`: failed validation
   * (with `skipInvalid`); `failed`: the start failed (e.g. the server was unreachable).
   */
  outcome: 'started' | 'existed' | 'conflict' | 'invalid' | 'failed';
  /** Why, for `conflict`, `invalid` and `failed`. */
  error?: string;
}

/** What {@link enqueueMany} did: every item's outcome, in input order, and the counts. */
export interface EnqueueManyResult {
  outcomes: EnqueueManyOutcome[];
  counts: Record<EnqueueManyOutcome['outcome'], number>;
}

/** Items that failed validation: each one named with its fields; nothing was enqueued. */
export class InvalidItemsError extends InvalidPayloadError {
  constructor(
    jobType: string,
    /** Every invalid item, with its label and the fields at fault. */
    readonly items: { index: number; label: string; issues: FieldIssue[] }[],
  ) {
    super(jobType, items.flatMap((item) => item.issues.map((i) => ({ path: i.path ? `${item.label}: ${i.path}` : item.label, message: i.message }))));
  }
}

const defaultConcurrency = 32;

/** Items as {@link prepareMany} left them: the valid ones ready to start, the others with their fields at fault. */
export interface PreparedItems {
  jobs: { index: number; label: string; job: PreparedJob }[];
  invalid: InvalidItemsError['items'];
}

/** Validates every item against the catalog (no Temporal call): what jobctl runs before it connects. */
export function prepareMany(catalog: Catalog<PayloadSchemas>, type: string, items: readonly EnqueueManyItem[], options: EnqueueManyOptions = {}): PreparedItems {
  if (!catalog.definition(type)) throw new UnknownJobTypeError(type, catalog.definitions.map((d) => d.type));
  const { delay, priority, fairnessKey, fairnessWeight } = options;
  const prepared: PreparedItems = { jobs: [], invalid: [] };
  items.forEach((item, index) => {
    const label = item.label ?? `items[${index}]`;
    try {
      prepared.jobs.push({ index, label, job: prepareJob(catalog, type, item.payload, { id: item.id, delay, priority, fairnessKey, fairnessWeight }) });
    } catch (err) {
      if (!(err instanceof InvalidPayloadError || err instanceof InvalidOptionError)) throw err;
      prepared.invalid.push({ index, label, issues: err.issues });
    }
  });
  return prepared;
}

/**
 * Starts prepared items through `start` (JobClient's), at most `concurrency` at once; throws
 * {@link InvalidItemsError} first if any item is invalid, unless `skipInvalid`.
 */
export async function startMany(start: (job: PreparedJob) => Promise<{ existed: boolean }>, type: string, prepared: PreparedItems, options: EnqueueManyOptions = {}): Promise<EnqueueManyResult> {
  const concurrency = options.concurrency ?? defaultConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new InvalidOptionError([{ path: 'concurrency', message: `must be a whole number from 1 to 256, got ${concurrency}` }]);
  const { jobs, invalid } = prepared;
  if (invalid.length > 0 && !options.skipInvalid) throw new InvalidItemsError(type, invalid);
  const outcomes: EnqueueManyOutcome[] = [];
  for (const bad of invalid) outcomes.push({ index: bad.index, label: bad.label, outcome: 'invalid', error: formatIssues(bad.issues) });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { index, label, job } = jobs[next++]!;
      let outcome: EnqueueManyOutcome;
      try {
        const result = await start(job);
        outcome = { index, label, id: job.id, outcome: result.existed ? 'existed' : 'started' };
      } catch (err) {
        outcome = { index, label, id: job.id, outcome: err instanceof IdConflictError ? 'conflict' : 'failed', error: describeError(err) };
      }
      outcomes.push(outcome);
      options.onOutcome?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  outcomes.sort((a, b) => a.index - b.index);
  const counts = { started: 0, existed: 0, conflict: 0, invalid: 0, failed: 0 };
  for (const o of outcomes) counts[o.outcome] += 1;
  return { outcomes, counts };
}
