// The activities the library registers on every worker, by the names its workflows call them.
// Workflow-safe. Stored contracts: histories name them.
//
// Since protocol 2 (job-protocol.ts) workflows call them by namespaced names (`durable-jobs.restartJob`),
// so a team's activity can never take one. Histories recorded before call the bare names, which
// every worker still registers as aliases of the same functions until 1.0 (see CHANGELOG); until
// then a team's activity of a bare name is refused too.

/** The library's activity types, by their bare names. */
export const libraryActivityTypes = [
  'handOffToDeadLetter',
  'restartJob',
  'requestConcurrencySlot',
  'releaseConcurrencySlot',
  'tellSlotGranted',
  'runningJobs',
  'startWindowJob',
  'setDependencyRate',
] as const;

/** The prefix of every activity type the library calls, and that no team's activity may use. */
export const libraryActivityNamespace = 'durable-jobs.';

/** The namespaced activity type of a library activity's bare name. */
export function namespacedActivityType(name: string): string {
  return `${libraryActivityNamespace}${name}`;
}

const bareNames: readonly string[] = libraryActivityTypes;

/** Whether `activityType` is one of the library's own activities (by either name), not a job's step. */
export function isLibraryActivity(activityType: string): boolean {
  return bareNames.includes(activityType) || activityType.startsWith(libraryActivityNamespace);
}

/** The bare name of a library activity type (`durable-jobs.restartJob` → `restartJob`); any other type unchanged. */
export function bareActivityType(activityType: string): string {
  return activityType.startsWith(libraryActivityNamespace) ? activityType.slice(libraryActivityNamespace.length) : activityType;
}

/** The library's activities under both of their names: the namespaced one workflows call, and the bare alias older histories call. */
export function registeredUnderBothNames<T extends Record<string, unknown>>(activities: T): Record<string, T[keyof T]> {
  const both: Record<string, T[keyof T]> = {};
  for (const [name, fn] of Object.entries(activities) as [string, T[keyof T]][]) {
    both[name] = fn;
    both[namespacedActivityType(name)] = fn;
  }
  return both;
}

/**
 * The names among a team's activities that the library's own take: registered beside the
 * library's, a team's would replace one silently (or be replaced), so the worker refuses them.
 */
export function collidingActivityNames(activities: object): string[] {
  return Object.keys(activities).filter((name) => bareNames.includes(name) || name.startsWith(libraryActivityNamespace));
}
