import type { Duration } from '@temporalio/common';
import { msToNumber } from '../shared/sdk-internals';
import type { z } from 'zod';
import { registry, isJobType, jobTypes, type JobPayload, type JobType } from '../jobs/registry';
import { jobIdPattern, maxDelayMs, maxJobIdLength, maxPayloadBytes } from '../shared/limits';
import { InvalidOptionError, InvalidPayloadError, UnknownJobTypeError, issuesFromZod, type FieldIssue } from '../shared/errors';

/** Checks that `type` is registered; throws {@link UnknownJobTypeError} otherwise. */
export function assertJobType(type: string): asserts type is JobType {
  if (!isJobType(type)) throw new UnknownJobTypeError(type, jobTypes);
}

/** Parses a payload against its job type's schema; throws {@link InvalidPayloadError} listing each bad field. */
export function validatePayload<T extends JobType>(type: T, payload: unknown): JobPayload<T> {
  const schema: z.ZodType = registry[type].payload;
  const result = schema.safeParse(payload);
  if (!result.success) throw new InvalidPayloadError(type, issuesFromZod(result.error, 'payload'));
  const bytes = Buffer.byteLength(JSON.stringify(result.data));
  if (bytes > maxPayloadBytes) throw new InvalidPayloadError(type, [{ path: 'payload', message: `is ${bytes} bytes as JSON; the limit is ${maxPayloadBytes}` }]);
  return result.data as JobPayload<T>;
}

/** Checks a caller-chosen job ID and delay; throws {@link InvalidOptionError} naming each bad one. */
export function validateOptions(options: { id?: string; delay?: Duration }): { id?: string; delayMs?: number } {
  const issues: FieldIssue[] = [];
  const { id, delay } = options;
  if (id !== undefined && (typeof id !== 'string' || id.length > maxJobIdLength || !jobIdPattern.test(id))) {
    issues.push({ path: 'id', message: `must be 1 to ${maxJobIdLength} characters of A-Z, a-z, 0-9 and . _ : @ / + = -` });
  }
  let delayMs: number | undefined;
  if (delay !== undefined) {
    try {
      delayMs = msToNumber(delay);
      if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError();
    } catch {
      issues.push({ path: 'delay', message: `must be a duration such as 30s, 5m or 1500 (ms), got ${JSON.stringify(delay)}` });
    }
    if (delayMs !== undefined && delayMs > maxDelayMs) issues.push({ path: 'delay', message: 'must be at most 365 days' });
  }
  if (issues.length > 0) throw new InvalidOptionError(issues);
  return { id, delayMs };
}
