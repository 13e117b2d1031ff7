// Activity helpers (`durable-jobs/activity`): what a job type's activities use. The worker adds the
// DLQ's own activities and the interceptors; a team's `createActivities(deps)` builds the rest.
// `ErrorType` is workflow-safe and comes from `durable-jobs/workflow`; each name is exported from
// one entry point (test/package/entry-points.test.ts).
export { withRetrySchedule, toScheduledFailure } from './retry-schedule';
export { parseRetryAfter } from './retry-after';
export { whileHeartbeating, heartbeatEveryMs } from './heartbeat';
export { rideOutDatabaseOutage, outageWaitsMs, type RideOutOptions } from './database-outage';
export { classifyDatabaseError, databaseFailure, type DatabaseErrorClass, type DatabaseErrorKind } from '../db/database-errors';
export { checkpoint, lastCheckpoint } from './checkpoint';
export { writeFileAtomic, type AtomicWriteOptions } from './atomic-write';
export { diskFullFailure, type WriteTarget } from './disk-full';
export { parseJobPayload } from './job-payload';
export { currentJob, type JobAttempt } from './job-attempt';
export { runOnce, recordedResult, ledgerSteps, type LedgerDatabase, type LedgerKey, type LedgerTable, type OnceResult } from './ledger';
export { delayAfterAttempt as scheduledDelayAfterAttempt, maxAttempts } from '../shared/retry';
export { nonRetryable, retryable, retryAfter } from '../shared/failures';
export { describeError, formatIssues } from '../shared/errors';
export { issuesFromZod } from '../shared/zod-issues';
export { traced } from '../shared/traced';
