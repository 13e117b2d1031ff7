// The only workflowsPath. Every exported function is a workflow type: a stored contract, never renamed.
export { sendEmailWorkflow } from './send-email';
export { processPaymentWorkflow } from './process-payment';
export { generateReportWorkflow } from './generate-report';
export { syncDataWorkflow } from './sync-data';
export { deadLetterWorkflow, concurrencyLimiterWorkflow, debounceJobWorkflow, dedupeJobWorkflow } from '../workflow';
export { noopWorkflow } from './noop';
