// Plain data (workflow code imports the definitions that use it).

/**
 * How a job shares its queue with other tenants' jobs: Temporal's fairness key and weight. When
 * tasks wait on a queue, the server hands them out round-robin over the keys, in proportion to
 * their weights, so one key's backlog does not hold back the others' jobs. It applies to the job's
 * workflow tasks and to every activity attempt of the job (they inherit it).
 */
export interface JobFairness {
  /**
   * The tenant, customer, sending domain…: 1 to {@link maxFairnessKeyBytes} bytes of UTF-8 text.
   * Jobs without one share the empty key.
   */
  key: string;
  /**
   * This key's share relative to the others' ({@link minFairnessWeight} to
   * {@link maxFairnessWeight}): a key of weight 3 is handed three tasks for every one of a key of
   * weight 1 while both wait. Also scales a per-key rate limit (`limits.ratePerKey`).
   * @defaultValue 1
   */
  weight?: number;
}

/** Longest fairness key Temporal accepts, in UTF-8 bytes (server: `fairnessKeyMaxLength`). */
export const maxFairnessKeyBytes = 64;

/** Smallest fairness weight Temporal honours (it raises smaller ones to this). */
export const minFairnessWeight = 0.001;

/** Largest fairness weight Temporal honours (it lowers larger ones to this). */
export const maxFairnessWeight = 1000;
