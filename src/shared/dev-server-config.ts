// Pure data, shared by `npm start`'s dev server and the test helpers that start one.

/**
 * Dynamic config the embedded dev server starts with. Temporal 1.29 orders backlogged tasks by
 * priority key (`jobctl enqueue --priority`) only with the new matcher, which is off by default,
 * and only within one partition of a task queue: a single partition (enough for one machine's
 * load) makes the order strict.
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
