// The workflow-safe entry point (`durable-jobs/workflow`): what a job type's workflow imports.
// Nothing here touches Node built-ins, zod or the activities; the SDK bundles and evaluates it for
// every job. The library's own workflows (the DLQ, windows, limiter) are added to every worker's
// bundle (src/worker/workflow-entry.ts); they are exported here for modules written for 0.2.
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from '../catalog/define-job';
export type { JobFairness } from '../catalog/job-fairness';
export type { JobLimits } from '../catalog/job-limits';
export { exponential, schedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
export { ErrorType, type NamespacedErrorType } from '../shared/errors';
export { trackJob, jobStateQuery, type JobProgress, type JobState } from './job-state';
export { jobActivities, localActivityOptions } from './job-activities';
export { ConfigWaitStopped, stopConfigWaitWhen } from './config-wait';
export { Saga } from './saga';
export { runJob, type JobRun, type StepOptions } from './run-job';
export { deadLetterWorkflow, type DeadLetterWorkflowInput } from './dead-letter';
export { concurrencyLimiterWorkflow } from './concurrency-limiter';
export type { ConcurrencyLimiterInput } from './concurrency-signals';
export { debounceJobWorkflow, type DebounceWorkflowInput } from './debounce';
export { dedupeJobWorkflow, type DedupeWorkflowInput } from './dedupe';
