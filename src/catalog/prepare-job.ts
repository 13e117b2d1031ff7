import { randomUUID } from 'node:crypto';
import type { Duration } from '@temporalio/common';
import type { Catalog, PayloadSchemas } from './catalog';
import type { JobDefinition } from './define-job';
import { validateOptions, validatePayload } from './validate';

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
  options: { id?: string; delay?: Duration; priority?: number } = {},
): PreparedJob {
  const parsed = validatePayload(catalog, type, payload);
  const definition = catalog.definition(type)!;
  const { id: chosenId, delayMs, priority } = validateOptions(options);
  const key = (definition.idempotencyKey as ((p: unknown) => string) | undefined)?.(parsed);
  return { definition, id: chosenId ?? key ?? `${type}-${randomUUID()}`, payload: parsed, delayMs, priority };
}
