// The catalog entry point (`durable-jobs/catalog`, also re-exported by `durable-jobs`): defining job
// types and catalogs. Plain data without zod or the SDK's clients, so job definitions (which
// workflow code imports) and the catalog module both import from here; the catalog, which carries
// the zod schemas, is for the client and the worker. A catalog that imports from here (and its
// payload schemas from `durable-jobs/schemas`) loads without the SDK's gRPC client and workflow
// package, so `jobctl enqueue` answers at once (docs/performance.md).
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from './define-job';
export { defineCatalog, isCatalog, type AnyJobDefinition, type Catalog, type CatalogSpec, type JobTypeOf, type PayloadInputOf, type PayloadOf, type PayloadSchemas } from './catalog';
export { CatalogError, NoCatalogError } from './catalog-error';
export { maxFairnessKeyBytes, maxFairnessWeight, minFairnessWeight, type JobFairness } from './job-fairness';
export type { JobLimits } from './job-limits';
export { exponential, schedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
// Error types a job definition lists as not retryable.
export { ErrorType, type NamespacedErrorType } from '../shared/errors';
