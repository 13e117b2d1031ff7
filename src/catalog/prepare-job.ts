import { randomUUID } from 'node:crypto';
import type { Duration } from '@temporalio/common';
import type { Catalog, PayloadSchemas } from './catalog';
import type { JobDefinition } from './define-job';
import { InvalidOptionError, InvalidPayloadError, describeError, type FieldIssue } from '../shared/errors';
import { jobIdPattern, maxJobIdLength } from '../shared/limits';
import { validateOptions, validatePayload } from './validate';
import { jobFairness, type FairnessOptions } from './fairness';
import type { JobFairness } from './job-fairness';
import { concurrencyKeyOf } from './concurrency-limit';
import { debouncedJobIdPrefix, dedupedJobId } from './window-ids';
import { validateWindowOptions, type DebounceOptions, type DedupeOptions, type ValidDebounce, type ValidDedupe } from './window-options';

/** A job validated and ready to start: what `JobClient.enqueue` starts, made without Temporal. */
export interface PreparedJob {
  /** The job type's definition. */
  definition: JobDefinition;
  /** The job ID: the caller's, the type's idempotency key, or `<type>-<random UUID>`. */
  id: string;
  /** The payload after validation (the schema's defaults applied). */
  payload: unknown;
  /** Wait before the first attempt, in ms. */
  delayMs?: number;
  /** 1 (highest) to 5 (lowest). */
  priority?: number;
  /** The fairness key and weight: the enqueue's, else the type's derived ones. */
  fairness?: JobFairness;
  /** Set for a debounced enqueue: `id` is then the prefix (`<type>:debounce:<key>`) that the window's run ID completes. */
  debounce?: ValidDebounce;
  /** Set for a deduplicated enqueue: `id` is then the job ID should this enqueue open the window. */
  dedupe?: ValidDedupe;
}

/**
 * Validates a job's type, payload and options against the catalog and derives its ID: the one
 * check of an enqueue, done before anything reaches Temporal (jobctl runs it before it connects).
 * Throws `jobs:unknown-job-type`, `jobs:invalid-payload` or `jobs:invalid-option` naming each field.
 */
export function prepareJob<S extends PayloadSchemas>(
  catalog: Catalog<S>,
  type: string,
  payload: unknown,
  options: { id?: string; delay?: Duration; priority?: number; debounce?: DebounceOptions; dedupe?: DedupeOptions } & FairnessOptions = {},
): PreparedJob {
  const parsed = validatePayload(catalog, type, payload, 'refuse');
  const definition = catalog.definition(type)!;
  // One report naming every bad option, the windows' included.
  const issues: FieldIssue[] = [];
  let checked: ReturnType<typeof validateOptions> = {};
  try {
    checked = validateOptions(options);
  } catch (err) {
    if (!(err instanceof InvalidOptionError)) throw err;
    issues.push(...err.issues);
  }
  const { debounce, dedupe } = validateWindowOptions(type, options, issues);
  if (issues.length > 0) throw new InvalidOptionError(issues);
  const { id: chosenId, delayMs, priority } = checked;
  const fairness = jobFairness(definition, parsed, options);
  // A bad concurrency key is refused here, before anything reaches Temporal.
  concurrencyKeyOf(definition, parsed, fairness);
  if (debounce) return { definition, id: debouncedJobIdPrefix(type, debounce.key), payload: parsed, priority, fairness, debounce };
  if (dedupe) return { definition, id: dedupedJobId(type, dedupe.key, randomUUID()), payload: parsed, delayMs, priority, fairness, dedupe };
  return { definition, id: chosenId ?? derivedId(definition, parsed) ?? `${type}-${randomUUID()}`, payload: parsed, delayMs, priority, fairness };
}

/**
 * The job ID the type's `idempotencyKey` derives from the payload, held to the rules of a chosen
 * ID (it becomes the workflow ID): a key that throws, or gives something else than 1 to
 * {@link maxJobIdLength} characters of the ID alphabet, is `jobs:invalid-payload` naming it.
 */
function derivedId(definition: JobDefinition, payload: unknown): string | undefined {
  const key = definition.idempotencyKey as ((p: unknown) => unknown) | undefined;
  if (!key) return undefined;
  let id: unknown;
  try {
    id = key(payload);
  } catch (err) {
    throw new InvalidPayloadError(definition.type, [{ path: 'payload', message: `the job type's idempotencyKey threw: ${describeError(err)}` }]);
  }
  if (typeof id !== 'string' || id.length === 0 || id.length > maxJobIdLength || !jobIdPattern.test(id)) {
    const shown = typeof id === 'string' ? JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id) : String(id);
    throw new InvalidPayloadError(definition.type, [
      { path: 'payload', message: `derives the job ID ${shown} (idempotencyKey), which must be 1 to ${maxJobIdLength} characters of A-Z, a-z, 0-9 and . _ : @ / + = -` },
    ]);
  }
  return id;
}
