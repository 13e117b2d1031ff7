import type { ActivityDeps } from './deps';
import { createEmailActivities } from './email';
import { createNoopActivities } from './noop';
import { createPaymentsActivities } from './payments';
import { createReportsActivities } from './reports';
import { createSyncSourceActivities } from './sync-source';

export type { ActivityDeps } from './deps';

/** Builds the built-in job types' activities (the worker adds the DLQ's). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps.email),
    ...createPaymentsActivities(deps),
    ...createReportsActivities(deps),
    ...createSyncSourceActivities(deps),
    ...createNoopActivities(),
  };
}

/** The activities, as workflows see them through `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
