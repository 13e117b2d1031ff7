import { Context } from '@temporalio/activity';
import type { z } from 'zod';
import { parseTolerant } from '../catalog/unknown-keys';
import { unwrapLegacyInput } from './job-attempt';
import { ErrorType, formatIssues } from '../shared/errors';
import { issuesFromZod } from '../shared/zod-issues';
import { nonRetryable } from '../shared/failures';

/**
 * Validates a job's payload again inside an activity (it crossed a process boundary). Unlike the
 * client, keys the schema does not know, at any depth, are left out of the result rather than
 * refused: during a rolling deploy a newer client may add an optional field (top level or inside a
 * nested object) that an older worker has never heard of, and the job must still run. The job's
 * own payload (its history, its record, a DLQ entry) keeps them. Each attempt that meets such
 * keys logs `job:unknown-fields` (info) naming them. A payload that fails the schema otherwise is a
 * non-retryable `jobs:invalid-payload` naming each field. A step retried from a workflow of 0.2
 * (whose steps took `{ jobId, execution, payload }`) has its payload taken out of that envelope.
 */
export function parseJobPayload<S extends z.ZodType>(type: string, schema: S, payload: unknown): z.output<S> {
  // A step that a workflow of an earlier release scheduled got the payload in an envelope.
  payload = unwrapLegacyInput(payload);
  const parsed = parseTolerant(schema as z.ZodType<z.output<S>>, payload, 'strip');
  if (!parsed.success) throw nonRetryable(ErrorType.InvalidPayload, `invalid ${type} payload: ${formatIssues(issuesFromZod(parsed.error, 'payload'))}`);
  if (parsed.unknownKeys.length > 0) logUnknown(type, parsed.unknownKeys.map((p) => ['payload', ...p].map(String).join('.')));
  return parsed.data;
}

function logUnknown(type: string, fields: string[]): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return; // called outside an activity (a test, a script): nobody to tell
  }
  context.log.info('job:unknown-fields', { jobType: type, fields, note: 'fields this worker does not know were ignored (a newer client sent them)' });
}
