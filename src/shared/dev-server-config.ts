// Pure data, shared by `npm start`'s dev server and the test helpers that start one.

/**
 * Dynamic config the embedded dev server (Temporal CLI 1.5.1, server 1.29.1) starts with.
 * Backlogged tasks are ordered by priority key (`jobctl enqueue --priority`) only with the new
 * matcher, and shared between fairness keys by weight only with fairness on (which implies the new
 * matcher); 1.29.1 has both off by default. Order and shares hold within one partition of a task
 * queue: a single partition (enough for one machine's load) makes them exact. docs/guide/operations.md
 * ("Which Temporal server runs where") says why 1.29.1 is good enough for this on one process.
 */
export const devServerDynamicConfig: Readonly<Record<string, string>> = {
  'matching.useNewMatcher': 'true',
  'matching.enableFairness': 'true',
  'matching.numTaskqueueReadPartitions': '1',
  'matching.numTaskqueueWritePartitions': '1',
};

/** {@link devServerDynamicConfig} as `temporal server start-dev` arguments. */
export function devServerDynamicConfigArgs(): string[] {
  return Object.entries(devServerDynamicConfig).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${value}`]);
}
