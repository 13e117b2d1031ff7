import { z } from 'zod';

// Bounds on what a caller may enqueue, checked before anything reaches Temporal. Pure, so job
// definitions (and through them workflows) may import it.

/** Characters a job ID may use: letters, digits and `. _ : @ / + = -` (no spaces, controls or bidi marks). */
export const jobIdPattern = /^[A-Za-z0-9._:@/+=-]+$/;

/** Longest job ID, in characters. @defaultValue 200 */
export const maxJobIdLength = 200;

/** Longest `delay` before a job's first attempt: 365 days, in ms. */
export const maxDelayMs = 365 * 24 * 60 * 60 * 1000;

/** Largest payload, as JSON, in bytes: well under Temporal's 2 MB limit on a workflow's input. @defaultValue 262144 */
export const maxPayloadBytes = 256 * 1024;

/** A single-line string (no CR or LF), e.g. for a mail header, of 1 to `max` characters. */
export function headerText(max: number) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[^\r\n]*$/, 'must not contain line breaks');
}

/** An identifier string (an account, a user) of 1 to `max` characters, without line breaks. */
export const identifier = (max = 128) => headerText(max);

/**
 * Options for an object's cross-field check (`superRefine`) that runs whenever the fields it reads
 * parsed cleanly, even if other fields did not, so that one error report names every bad field.
 * (By default zod skips such a check as soon as any field has failed.)
 */
export function whenValid(...fields: string[]): { when: (payload: { value: unknown; issues: readonly { path?: readonly PropertyKey[] }[] }) => boolean } {
  return {
    when: ({ value, issues }) =>
      typeof value === 'object' && value !== null && !Array.isArray(value) && !issues.some((issue) => issue.path?.length === 0 || fields.includes(String(issue.path?.[0]))),
  };
}
