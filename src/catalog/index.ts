// The catalog entry point (`durable-jobs/catalog`, also re-exported by `durable-jobs`): defining
// catalogs, and the building blocks of payload schemas (zod), without the SDK's clients: a catalog
// module and its payload schemas import from here, and load at once in `jobctl enqueue`
// (docs/performance.md). Not for workflow code (zod): job definitions import `durable-jobs/job`.
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from './define-job';
export { defineCatalog, isCatalog, type AnyJobDefinition, type Catalog, type CatalogSpec, type JobTypeOf, type PayloadInputOf, type PayloadOf, type PayloadSchemas } from './catalog';
export { CatalogError, NoCatalogError } from './catalog-error';
export { maxFairnessKeyBytes, maxFairnessWeight, minFairnessWeight, type JobFairness } from './job-fairness';
export type { JobLimits } from './job-limits';
export { exponential, schedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
// Building blocks for payload schemas (zod): bounded header-safe text, cross-field checks, the job-ID alphabet.
export { headerText, identifier, whenValid, jobIdPattern, maxJobIdLength, maxPayloadBytes, maxDelayMs } from '../shared/limits';
