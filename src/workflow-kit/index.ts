// The workflow-safe entry point (`durable-jobs/workflow`): job definitions, retry shapes, error
// types, what a job type's workflow imports, and the lint rules that keep it so. Nothing here touches Node built-ins, zod, the
// activities or the client, so a definition module that workflow code imports takes it too, and
// any other code may. The library's own workflows (the DLQ, windows, limiter) are added to every
// worker's bundle (src/worker/workflow-entry.ts); the exports marked deprecated are for modules
// written for 0.2.
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from '../catalog/define-job';
export type { JobFairness } from '../catalog/job-fairness';
export type { JobLimits } from '../catalog/job-limits';
export type { BreakerOptions, JobDependency } from '../catalog/dependency';
export { exponentialRetry, retrySchedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
/** @deprecated Since 0.3: `retrySchedule` and `exponentialRetry`, named apart from cron schedules; removed in 0.4. */
export { exponential, schedule } from '../shared/retry';
export { ErrorType, type NamespacedErrorType } from '../shared/errors';
export { trackJob, jobStateQuery, type JobProgress, type JobState } from './job-state';
export { jobActivities, localActivityOptions } from './job-activities';
export { ConfigWaitStopped, stopConfigWaitWhen } from './config-wait';
export { Saga } from './saga';
export { runJob, type JobRun, type StepOptions } from './run-job';
export { workflowCodeRules, type WorkflowCodeRules, type WorkflowCodeRulesOptions } from './lint-rules';
/** @deprecated Since 0.2.x every worker bundles the library's workflows: a workflows module exports only its own; removed in 0.4. */
export { deadLetterWorkflow, type DeadLetterWorkflowInput } from './dead-letter';
/** @deprecated As {@link deadLetterWorkflow}. */
export { concurrencyLimiterWorkflow } from './concurrency-limiter';
/** @deprecated As {@link deadLetterWorkflow}. */
export type { ConcurrencyLimiterInput } from '../catalog/concurrency-signals';
/** @deprecated As {@link deadLetterWorkflow}. */
export { debounceJobWorkflow, type DebounceWorkflowInput } from './debounce';
/** @deprecated As {@link deadLetterWorkflow}. */
export { dedupeJobWorkflow, type DedupeWorkflowInput } from './dedupe';
