// The catalog entry point (`durable-jobs/catalog`): the catalog module and payload schemas. The
// catalog gathers a project's job definitions (from `durable-jobs/workflow`) with their payload
// schemas (zod) for the client, the worker and jobctl; the building blocks below are for those
// schemas. Zod but not the SDK's clients, so a catalog loads at once in `jobctl enqueue`
// (docs/performance.md); not for workflow code. Each live name is exported from one entry point
// (test/package/entry-points.test.ts); the deprecated ones are 0.2's, kept for one minor version.
export { defineCatalog, isCatalog, type AnyJobDefinition, type Catalog, type CatalogSpec, type JobTypeOf, type PayloadInputOf, type PayloadOf, type PayloadSchemas } from './catalog';
export { CatalogError, NoCatalogError } from './catalog-error';
export { maxFairnessKeyBytes, maxFairnessWeight, minFairnessWeight } from './job-fairness';
// Building blocks for payload schemas (zod): bounded header-safe text, cross-field checks, the job-ID alphabet.
export { headerText, identifier, whenValid, jobIdPattern, maxJobIdLength, maxPayloadBytes, maxDelayMs } from '../shared/limits';
/** @deprecated Since 0.3: import from `durable-jobs/workflow`; removed in 0.4. */
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from './define-job';
/** @deprecated Since 0.3: import from `durable-jobs/workflow`; removed in 0.4. */
export type { JobFairness } from './job-fairness';
/** @deprecated Since 0.3: import from `durable-jobs/workflow`; removed in 0.4. */
export type { JobLimits } from './job-limits';
/** @deprecated Since 0.3: `retrySchedule` and `exponentialRetry` from `durable-jobs/workflow`; removed in 0.4. */
export { exponential, schedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
