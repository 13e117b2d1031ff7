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
