// `durable-jobs/job`, deprecated since 0.3 (removed in 0.4): import from `durable-jobs/workflow`.
// It was what a job type's definition module imports. Plain data
// already in every workflow bundle (the definition, retry shapes, error types), without zod, the
// catalog or the SDK's clients, so workflow code may import the definitions, and a catalog that
// gathers them loads at once in `jobctl enqueue` (docs/performance.md). `durable-jobs/workflow`
// exports the same for workflow code that needs more.
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from '../catalog/define-job';
export type { JobFairness } from '../catalog/job-fairness';
export type { JobLimits } from '../catalog/job-limits';
export { exponential, schedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
export { ErrorType, type NamespacedErrorType } from '../shared/errors';
