// The activities the library registers on every worker, by the names its workflows call them.
// Workflow-safe. Stored contracts: histories name them.

/** The library's activity types. A team's activity of one of these names is refused at start. */
export const libraryActivityTypes = [
  'handOffToDeadLetter',
  'restartJob',
  'requestConcurrencySlot',
  'releaseConcurrencySlot',
  'tellSlotGranted',
  'runningJobs',
  'startWindowJob',
] as const;

const names: ReadonlySet<string> = new Set(libraryActivityTypes);

/** Whether `activityType` is one of the library's own activities, not a job's step. */
export function isLibraryActivity(activityType: string): boolean {
  return names.has(activityType);
}

/**
 * The names among a team's activities that the library's own take: registered beside the
 * library's, a team's would replace one silently (or be replaced), so the worker refuses them.
 */
export function collidingActivityNames(activities: object): string[] {
  return Object.keys(activities).filter((name) => names.has(name));
}
