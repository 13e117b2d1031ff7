// The library's own workflows, which every worker bundles beside a team's (src/worker/workflow-entry.ts):
// the DLQ, the debounce and dedupe windows, the per-key concurrency limiter and the dependencies' breakers. Their names are
// stored contracts.
export { deadLetterWorkflow } from './dead-letter';
export { concurrencyLimiterWorkflow } from './concurrency-limiter';
export { debounceJobWorkflow } from './debounce';
export { dedupeJobWorkflow } from './dedupe';
export { dependencyBreakerWorkflow } from './breaker';
