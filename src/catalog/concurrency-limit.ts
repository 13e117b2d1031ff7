// The stored contracts of per-key concurrency limits (docs/guarantees.md): the limiter workflow's
// type and ID, and the memo key a limited job carries its key in. Never renamed in place.
import type { JobDefinition } from './define-job';
import type { JobFairness } from './job-fairness';
import { concurrencyKeyProblem, type JobLimits } from './job-limits';
import { InvalidPayloadError, describeError } from '../shared/errors';

/** Workflow type of the limiter that hands out one job type's slots for one key. */
export const concurrencyLimiterWorkflowType = 'concurrencyLimiterWorkflow';

/** Memo key under which a limited job carries its concurrency key from its start. */
export const concurrencyKeyMemoKey = 'concurrencyKey';

/** The key every job of a type shares when its definition derives none. */
export const wholeTypeKey = '*';

/** The limiter's workflow ID: one per deployment, job type and key, on the deployment's shared queue. */
export function concurrencyLimiterId(taskQueue: string, jobType: string, key: string): string {
  return `jobs-limit:${taskQueue}:${jobType}:${key}`;
}

/**
 * The concurrency key of a job of this payload and fairness, or `undefined` when its type declares
 * no concurrency limit: what `limits.concurrencyKey` derives, else the fairness key, else one key
 * for the type. A key function that throws or returns an unusable key is
 * `jobs:invalid-payload` naming it, before anything starts.
 */
export function concurrencyKeyOf(definition: JobDefinition, payload: unknown, fairness: JobFairness | undefined): string | undefined {
  const limits = definition.limits as JobLimits | undefined;
  if (limits?.concurrencyPerKey === undefined) return undefined;
  if (!limits.concurrencyKey) return fairness?.key || wholeTypeKey;
  let key: unknown;
  try {
    key = limits.concurrencyKey(payload);
  } catch (err) {
    throw new InvalidPayloadError(definition.type, [{ path: 'payload', message: `the job type's limits.concurrencyKey threw: ${describeError(err)}` }]);
  }
  const problem = concurrencyKeyProblem(key);
  if (problem) throw new InvalidPayloadError(definition.type, [{ path: 'payload', message: `derives the concurrency key ${JSON.stringify(key)} (limits.concurrencyKey), which ${problem}` }]);
  return key as string;
}
