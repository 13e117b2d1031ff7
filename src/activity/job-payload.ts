import type { z } from 'zod';
import { ErrorType, formatIssues, issuesFromZod, nonRetryable } from '../shared/errors';

/**
 * Validates a job's payload again inside an activity (it crossed a process boundary). Unlike the
 * client, keys the schema does not know are dropped rather than refused: during a rolling deploy a
 * newer client may add an optional field that an older worker has never heard of. A payload that
 * fails the schema is a non-retryable `jobs:invalid-payload` naming each field.
 */
export function parseJobPayload<S extends z.ZodType>(type: string, schema: S, payload: unknown): z.output<S> {
  const lenient = (schema as unknown as { strip?: () => S }).strip?.() ?? schema;
  const parsed = lenient.safeParse(payload);
  if (!parsed.success) throw nonRetryable(ErrorType.InvalidPayload, `invalid ${type} payload: ${formatIssues(issuesFromZod(parsed.error, 'payload'))}`);
  return parsed.data;
}
