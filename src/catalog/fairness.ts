import type { Priority } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { JobDefinition } from './define-job';
import { maxFairnessKeyBytes, maxFairnessWeight, minFairnessWeight, type JobFairness } from './job-fairness';
import { InvalidOptionError, InvalidPayloadError, describeError, type FieldIssue } from '../shared/errors';
import { shownValue } from '../shared/shown-value';

/** The fairness fields of an enqueue (`EnqueueOptions`, a schedule's options). */
export interface FairnessOptions {
  /** The job's fairness key, instead of the one its type derives. */
  fairnessKey?: string;
  /** The key's weight. */
  fairnessWeight?: number;
}

/** C0 and C1 control characters, DEL, and the Unicode line and paragraph separators. */
const controlCharacter = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a fairness key, if anything. */
export function fairnessKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return `must be a non-empty string, got ${shownValue(key)}`;
  if (loneSurrogate.test(key)) return 'is not valid Unicode text (a lone surrogate)';
  // Shown by jobctl status and in the console: a line break in it could forge a line.
  const control = controlCharacter.exec(key);
  if (control) return `must not contain control characters or line breaks, got U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at index ${control.index}`;
  if (key.trim().length === 0) return 'must not be only whitespace';
  const bytes = Buffer.byteLength(key);
  if (bytes > maxFairnessKeyBytes) return `must be at most ${maxFairnessKeyBytes} bytes of UTF-8 (Temporal's limit), got ${bytes}`;
  return undefined;
}

/** What is wrong with a fairness weight, if anything. */
export function fairnessWeightProblem(weight: unknown): string | undefined {
  if (typeof weight === 'number' && Number.isFinite(weight) && weight >= minFairnessWeight && weight <= maxFairnessWeight) return undefined;
  return `must be a number from ${minFairnessWeight} to ${maxFairnessWeight} (Temporal's range), got ${shownValue(weight)}`;
}


/** The issues of an enqueue's fairness options, named by field. */
export function fairnessOptionIssues(options: FairnessOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const key = options.fairnessKey === undefined ? undefined : fairnessKeyProblem(options.fairnessKey);
  if (key) issues.push({ path: 'fairnessKey', message: key });
  const weight = options.fairnessWeight === undefined ? undefined : fairnessWeightProblem(options.fairnessWeight);
  if (weight) issues.push({ path: 'fairnessWeight', message: weight });
  return issues;
}

/**
 * What the type's `fairness` derives from the payload, held to Temporal's limits: one that throws
 * or gives a bad key or weight is `jobs:invalid-payload` naming it.
 */
export function derivedFairness(definition: JobDefinition, payload: unknown): JobFairness | undefined {
  const derive = definition.fairness as ((p: unknown) => JobFairness | undefined) | undefined;
  if (!derive) return undefined;
  let fairness: JobFairness | undefined;
  try {
    fairness = derive(payload);
  } catch (err) {
    throw new InvalidPayloadError(definition.type, [{ path: 'payload', message: `the job type's fairness threw: ${describeError(err)}` }]);
  }
  if (fairness === undefined) return undefined;
  const keyProblem = fairnessKeyProblem(fairness?.key);
  if (keyProblem) throw new InvalidPayloadError(definition.type, [{ path: 'payload', message: `the job type's fairness gave the key ${shownValue(fairness?.key)}, which ${keyProblem}` }]);
  const weightProblem = fairness.weight === undefined ? undefined : fairnessWeightProblem(fairness.weight);
  if (weightProblem) throw new InvalidPayloadError(definition.type, [{ path: 'payload', message: `the job type's fairness gave the weight ${shownValue(fairness.weight)}, which ${weightProblem}` }]);
  return fairness.weight === undefined ? { key: fairness.key } : { key: fairness.key, weight: fairness.weight };
}

/**
 * A job's fairness: the enqueue's key, else the type's derived one; the enqueue's weight, else the
 * derived one when the key is derived too. A weight without any key is refused. Throws
 * {@link InvalidOptionError} or {@link InvalidPayloadError} naming the field.
 */
export function jobFairness(definition: JobDefinition, payload: unknown, options: FairnessOptions = {}): JobFairness | undefined {
  const issues = fairnessOptionIssues(options);
  if (issues.length > 0) throw new InvalidOptionError(issues);
  const derived = options.fairnessKey === undefined ? derivedFairness(definition, payload) : undefined;
  const key = options.fairnessKey ?? derived?.key;
  if (key === undefined) {
    if (options.fairnessWeight === undefined) return undefined;
    throw new InvalidOptionError([{ path: 'fairnessWeight', message: `weighs a fairness key, but there is none: give fairnessKey too (${definition.type} derives none)` }]);
  }
  const weight = options.fairnessWeight ?? derived?.weight;
  return weight === undefined ? { key } : { key, weight };
}

/** The Temporal priority of a job: its priority key and fairness; unset when it has neither. */
export function jobPriority(priorityKey: number | undefined, fairness: JobFairness | undefined): Priority | undefined {
  if (priorityKey === undefined && fairness === undefined) return undefined;
  const priority: Priority = {};
  if (priorityKey !== undefined) priority.priorityKey = priorityKey;
  if (fairness) priority.fairnessKey = fairness.key;
  if (fairness?.weight !== undefined) priority.fairnessWeight = fairness.weight;
  return priority;
}

/**
 * The fairness a workflow runs with, from its description's priority (the one place it is kept).
 * The weight travels as a 32-bit float: shown to 6 significant digits.
 */
export function fairnessOfPriority(priority: temporal.api.common.v1.IPriority | null | undefined): JobFairness | undefined {
  if (!priority?.fairnessKey) return undefined;
  const weight = priority.fairnessWeight ? Number(priority.fairnessWeight.toPrecision(6)) : undefined;
  return weight === undefined ? { key: priority.fairnessKey } : { key: priority.fairnessKey, weight };
}
