import type { Db } from '../jobs/database/schema';
import { createEmailActivities, type EmailDeps } from './email';
import { createNoopActivities } from './noop';
import { createPaymentsActivities } from './payments';
import { createReportsActivities } from './reports';
import { createSyncSourceActivities } from './sync-source';

/** Everything the activities need, built once by the worker. */
export interface ActivityDeps {
  /** Email transport settings. */
  email: EmailDeps;
  /** The jobs database: ledger, accounts, entries, synced records. */
  db: Db;
  /** Directory `generate-report` writes to. */
  reportsDir: string;
  /** Where `sync-data` pulls pages from. @defaultValue unset: sync-data attempts fail with jobs:missing-config */
  syncSourceUrl?: string;
}

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
