// Defining job types and catalogs: plain data (workflow code may import `defineJob` and the
// definitions); the catalog, which carries the zod schemas, is for the client and the worker.
export { defineJob, activityOptions, jobMaxAttempts, presetOptions, type ActivityPreset, type JobDefinition, type JobQueue, type JobTimeouts } from './define-job';
export { defineCatalog, isCatalog, type AnyJobDefinition, type Catalog, type CatalogSpec, type JobTypeOf, type PayloadInputOf, type PayloadOf, type PayloadSchemas } from './catalog';
export { CatalogError, NoCatalogError } from './catalog-error';
export { maxFairnessKeyBytes, maxFairnessWeight, minFairnessWeight, type JobFairness } from './job-fairness';
export type { JobLimits } from './job-limits';
export { exponential, schedule, type ExponentialRetry, type RetryShape, type ScheduledRetry } from '../shared/retry';
