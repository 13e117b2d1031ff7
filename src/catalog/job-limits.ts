/**
 * Limits a job type declares on how much of it runs at once, shared by every worker of the
 * deployment. `TPayload` is the validated payload, which `concurrencyKey` receives.
 */
export interface JobLimits<TPayload = unknown> {
  /**
   * At most this many activity attempts per second start for each fairness key (the job's
   * `fairness` key, or the one given at enqueue), summed over all workers: e.g. 10 emails a second
   * per sending domain. A key's weight scales it (weight 2: twice the rate). Jobs without a key
   * share the empty key's rate. Enforced by the Temporal server (its per-fairness-key rate limit on
   * the type's task queue, which the worker sets at start), so the type needs a queue of its own
   * and regular (not local) activities; retries count as starts. A per-type setting: an enqueue
   * cannot change it. @defaultValue unlimited
   */
  ratePerKey?: number;
  /**
   * At most this many jobs of the type run at once per concurrency key, across all workers (e.g. 2
   * syncs per customer). A job takes its slot before its first step and holds it through its
   * retries and continue-as-new hand-overs until it closes; jobs over the limit wait, queued by
   * priority then arrival, without starting an attempt. See docs/guarantees.md.
   * @defaultValue unlimited
   */
  concurrencyPerKey?: number;
  /**
   * The key the concurrency limit counts per, derived from the payload (e.g. the customer).
   * 1 to 64 bytes. @defaultValue the job's fairness key (derived, or given at enqueue), else one
   * key for the whole job type
   */
  concurrencyKey?(payload: TPayload): string;
}

/** The longest concurrency key, in UTF-8 bytes: it names a workflow ID (Temporal's limit is 255 in all). */
export const maxConcurrencyKeyBytes = 64;

/** What is wrong with a job type's declared limits, named by path. */
export function limitProblems(limits: JobLimits | undefined, at: string): Array<{ path: string; message: string }> {
  if (limits === undefined) return [];
  const problems: Array<{ path: string; message: string }> = [];
  const n = limits.concurrencyPerKey;
  if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= 10_000)) {
    problems.push({ path: `${at}.limits.concurrencyPerKey`, message: 'must be a whole number from 1 to 10000' });
  }
  if (limits.concurrencyKey !== undefined && typeof limits.concurrencyKey !== 'function') {
    problems.push({ path: `${at}.limits.concurrencyKey`, message: 'must be a function of the payload returning the key' });
  }
  if (limits.concurrencyKey !== undefined && n === undefined) {
    problems.push({ path: `${at}.limits.concurrencyKey`, message: 'needs limits.concurrencyPerKey' });
  }
  return problems;
}

/** Why a concurrency key is unusable, if it is. */
export function concurrencyKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return 'must be a non-empty string';
  if (Buffer.byteLength(key) > maxConcurrencyKeyBytes) return `is ${Buffer.byteLength(key)} bytes; the limit is ${maxConcurrencyKeyBytes}`;
  return undefined;
}
