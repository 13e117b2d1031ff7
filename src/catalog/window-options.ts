import type { Duration } from '@temporalio/common';
import { msToNumber } from '../shared/sdk-internals';
import { jobIdPattern, maxDelayMs, maxJobIdLength } from '../shared/limits';
import type { FieldIssue } from '../shared/errors';
import { maxWindowKeyLength } from './window-ids';
import { shownValue } from '../shared/shown-value';

/** Option of `enqueue`: collapse the enqueues of one key that come close together into one job. */
export interface DebounceOptions {
  /**
   * What enqueues collapse by, e.g. a customer ID: 1 to about 150 characters (less the type name's
   * length) of A-Z, a-z, 0-9 and `. _ : @ / + = -`. Keys of different job types never meet.
   */
  key: string;
  /** The job starts this long after the last enqueue of its window, e.g. `'30s'`. More than 0. */
  delay: Duration;
  /**
   * The job starts at the latest this long after the first enqueue of its window, however often
   * enqueues keep coming. At least `delay`, at most 365 days. @defaultValue the larger of `delay` and 1 hour
   */
  maxDelay?: Duration;
}

/** Option of `enqueue`: a second enqueue of the key within `ttl` returns the first job instead of running another. */
export interface DedupeOptions {
  /** What enqueues are the same by, e.g. `reminder:<user>`: the same alphabet and bound as {@link DebounceOptions.key}. */
  key: string;
  /** How long after the first enqueue the key keeps returning its job, e.g. `'24h'`. More than 0, at most 365 days. */
  ttl: Duration;
}

/** A debounce option, checked: what a debounced enqueue carries to its window. */
export interface ValidDebounce {
  key: string;
  delayMs: number;
  maxDelayMs: number;
}

/** A dedupe option, checked. */
export interface ValidDedupe {
  key: string;
  ttlMs: number;
}

const hourMs = 60 * 60 * 1000;

/**
 * Checks the `debounce` and `dedupe` options of an enqueue, and that they go with the others:
 * either one excludes `id` (the window names the job) and the other, and `debounce` excludes
 * `delay` (it is one). Adds an issue naming each bad field to `issues`.
 */
export function validateWindowOptions(
  type: string,
  options: { id?: string; delay?: Duration; debounce?: DebounceOptions; dedupe?: DedupeOptions },
  issues: FieldIssue[],
): { debounce?: ValidDebounce; dedupe?: ValidDedupe } {
  const { debounce, dedupe } = options;
  if (debounce !== undefined && dedupe !== undefined) issues.push({ path: 'dedupe', message: 'cannot be combined with debounce: choose one' });
  const window = debounce !== undefined ? 'debounce' : dedupe !== undefined ? 'dedupe' : undefined;
  if (window === undefined) return {};
  if (options.id !== undefined) issues.push({ path: 'id', message: `cannot be combined with ${window}: the window names its job (docs/guarantees.md)` });
  if (debounce !== undefined && options.delay !== undefined) issues.push({ path: 'delay', message: 'cannot be combined with debounce, which delays the job itself (debounce.delay)' });
  if (debounce !== undefined) {
    if (typeof debounce !== 'object' || debounce === null) {
      issues.push({ path: 'debounce', message: 'must be an object { key, delay, maxDelay? }' });
      return {};
    }
    const key = checkKey('debounce', type, debounce.key, issues);
    const delayMs = checkDuration('debounce.delay', debounce.delay, issues);
    const maxDelayMs = debounce.maxDelay === undefined ? (delayMs === undefined ? undefined : Math.max(delayMs, hourMs)) : checkDuration('debounce.maxDelay', debounce.maxDelay, issues);
    if (delayMs !== undefined && maxDelayMs !== undefined && maxDelayMs < delayMs) {
      issues.push({ path: 'debounce.maxDelay', message: `must be at least debounce.delay (${delayMs} ms), got ${maxDelayMs} ms` });
    }
    if (key === undefined || delayMs === undefined || maxDelayMs === undefined) return {};
    return { debounce: { key, delayMs, maxDelayMs } };
  }
  if (typeof dedupe !== 'object' || dedupe === null) {
    issues.push({ path: 'dedupe', message: 'must be an object { key, ttl }' });
    return {};
  }
  const key = checkKey('dedupe', type, dedupe.key, issues);
  const ttlMs = checkDuration('dedupe.ttl', dedupe.ttl, issues);
  return key === undefined || ttlMs === undefined ? {} : { dedupe: { key, ttlMs } };
}

function checkKey(kind: 'debounce' | 'dedupe', type: string, key: unknown, issues: FieldIssue[]): string | undefined {
  const max = maxWindowKeyLength(kind, type, maxJobIdLength);
  if (typeof key === 'string' && key.length > 0 && key.length <= max && jobIdPattern.test(key)) return key;
  const got = typeof key === 'string' ? (key.length === 0 ? 'an empty key' : `${key.length} characters`) : JSON.stringify(key) ?? String(key);
  issues.push({ path: `${kind}.key`, message: `must be 1 to ${max} characters of A-Z, a-z, 0-9 and . _ : @ / + = - (the job ID is built from it), got ${got}` });
  return undefined;
}

/** A duration of more than 0 and at most 365 days, in ms. */
function checkDuration(path: string, value: unknown, issues: FieldIssue[]): number | undefined {
  let ms: number;
  try {
    ms = msToNumber(value as Duration);
  } catch {
    ms = Number.NaN;
  }
  if (value === undefined) {
    issues.push({ path, message: 'is required: a duration such as 30s, 5m or 1500 (ms)' });
  } else if (!Number.isFinite(ms) || ms <= 0) {
    issues.push({ path, message: `must be a duration of more than 0, such as 30s, 5m or 1500 (ms), got ${shownValue(value)}` });
  } else if (ms > maxDelayMs) {
    issues.push({ path, message: 'must be at most 365 days' });
  } else return ms;
  return undefined;
}
