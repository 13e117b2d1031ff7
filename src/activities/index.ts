import { createEmailActivities, type EmailDeps } from './email';

/** Everything the activities need, built once by the worker. */
export interface ActivityDeps {
  /** Email transport settings. */
  email: EmailDeps;
}

/** Builds every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps.email),
  };
}

/** The activities, as workflows see them through `proxyActivities<Activities>()`. */
export type Activities = ReturnType<typeof createActivities>;
