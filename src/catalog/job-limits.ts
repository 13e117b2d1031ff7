// Plain data (workflow code imports the definitions that use it).

/** Limits a job type puts on its jobs per key, over all workers. */
export interface JobLimits {
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
}
